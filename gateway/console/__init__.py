"""The console's static front end (#32): plain ES modules, CSS and one HTML page, shipped as package
data and served by `gateway.http.console` at `/console/`. Nothing here runs in Python."""
