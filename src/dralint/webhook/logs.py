"""One JSON object per line on standard error: what log collectors in a cluster expect.

    {"time": "2025-01-01T12:00:00.123Z", "level": "info", "logger": "dralint.webhook",
     "msg": "admission", "pid": 7, "uid": "…", "kind": "ResourceClaim", "verdict": "denied", …}

Fields passed with `extra=` become top-level keys; the request uid is one of
them on every line about a review.
"""

from __future__ import annotations

import json
import logging
import sys
import time

LIFECYCLE = "dralint.webhook.lifecycle"
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName", "color_message"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        seconds = record.created
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{int(seconds % 1 * 1000):03d}Z"
        entry = {
            "time": stamp,
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "pid": record.process,
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_") and key not in entry:
                entry[key] = value
        if record.exc_info and "traceback" not in entry:
            entry["traceback"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def setup(level: str = "info") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    # uvicorn's own loggers go through ours; its access log is replaced by the "admission" lines.
    for name in ("uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = True
    logging.getLogger("uvicorn.access").disabled = True
    # Start, stop and certificate reloads are logged whatever --log-level says (tools wait for "listening").
    logging.getLogger(LIFECYCLE).setLevel(logging.INFO)
