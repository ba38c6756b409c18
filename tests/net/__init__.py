"""Outbound network (gateway/net): the address policy and the page reader."""
