"""The gRPC ExternalProcessor (grpc.aio) that Envoy calls on POST /v1/responses."""
