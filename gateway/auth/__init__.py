"""Authentication and projects: who is calling, and which project's objects they may touch.

`keys` mints and administers API keys (the CLI and the admin routes share it); `authenticator`
turns a request's credentials into a project in both doors; `limits` holds each project's rates
and permissions. The project then scopes every store call through `storage.scope`.
"""
