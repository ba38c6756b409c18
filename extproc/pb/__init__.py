"""Generated protobuf/gRPC stubs of envoy.service.ext_proc.v3 (see proto/generate.py)."""
