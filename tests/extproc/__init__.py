"""The Envoy door: the ExtProc, Envoy's configuration, the gRPC stubs."""
