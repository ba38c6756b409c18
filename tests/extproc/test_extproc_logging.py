"""The ExtProc's log stays quiet about a race Envoy always wins, and loud about everything else."""

from __future__ import annotations

import logging

import pytest
from grpc._cython.cygrpc import ExecuteBatchError

from extproc.server import GRPC_CORE_LOGGER, PeerClosedFirst


def _log_batch_error(logger: logging.Logger, detail: str) -> None:
    try:
        raise ExecuteBatchError(f'Failed "execute_batch": ({detail},)')
    except ExecuteBatchError:
        logger.exception("ExecuteBatchError raised in core by servicer method [%s]", "/ext_proc/Process")


def test_status_after_envoy_closed_is_debug_other_errors_stay(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger(GRPC_CORE_LOGGER)
    demote = PeerClosedFirst()
    logger.addFilter(demote)
    try:
        _check(logger, caplog)
    finally:
        logger.removeFilter(demote)


def _check(logger: logging.Logger, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=GRPC_CORE_LOGGER):
        _log_batch_error(logger, "<grpc._cython.cygrpc.SendStatusFromServerOperation object at 0x1>")
        assert caplog.records == []  # demoted below the level in force
        _log_batch_error(logger, "<grpc._cython.cygrpc.SendMessageOperation object at 0x1>")
        logger.error("something else broke")
    assert [(r.levelname, r.exc_info is not None) for r in caplog.records] == [("ERROR", True), ("ERROR", False)]
    with caplog.at_level(logging.DEBUG, logger=GRPC_CORE_LOGGER):
        caplog.clear()
        _log_batch_error(logger, "<grpc._cython.cygrpc.SendStatusFromServerOperation object at 0x1>")
    assert [r.levelname for r in caplog.records] == ["DEBUG"]
