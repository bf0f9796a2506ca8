"""Prometheus metrics, exact across workers, without a client library.

Every label value is known when the server starts (verdicts, the kinds of
resource.k8s.io, the rule codes of the loaded rules and policies, plus
"other"), so each series is a fixed slot in an array of doubles. The array
lives in an anonymous shared mapping created before the workers are forked:
each worker writes only its own row, `/metrics` (served by any worker) sums
the rows. A worker that is restarted keeps its row, so counters never go
backwards. Updates are plain memory writes (no lock, no syscall).

Exposed (text format 0.0.4):

    dralint_webhook_admission_requests_total{kind, verdict}   verdict: allowed | denied | error
    dralint_webhook_admission_duration_seconds                histogram, body read to response
    dralint_webhook_problems_total{code}                      every problem sent (denials, warnings), by rule code
    dralint_webhook_warnings_total                            warnings returned to clients
    dralint_webhook_bad_requests_total{reason}                malformed | too_large | read_timeout |
                                                              unsupported_media_type | method_not_allowed | not_found |
                                                              overloaded (503: past --max-in-flight or --max-buffered-bytes)
    dralint_webhook_internal_errors_total                     reviews dralint failed to judge (see --on-error):
                                                              an exception, a failed rule, a judge that died, a timeout
    dralint_webhook_review_timeouts_total                     of those, reviews not judged within --review-timeout
    dralint_webhook_in_flight_requests                        gauge
    dralint_webhook_certificate_reloads_total{result}         success | failure
    dralint_webhook_info{version, kubernetes_version, workers} gauge, always 1
"""

from __future__ import annotations

import mmap
from typing import Iterable

VERDICTS = ("allowed", "denied", "error")
BAD_REQUEST_REASONS = ("malformed", "too_large", "read_timeout", "unsupported_media_type", "method_not_allowed", "not_found", "overloaded")
RELOAD_RESULTS = ("success", "failure")
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
OTHER = "other"

PREFIX = "dralint_webhook_"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _num(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


class Metrics:
    def __init__(self, kinds: Iterable[str], codes: Iterable[str], slots: int = 1, info: dict[str, str] | None = None):
        self.kinds = tuple(sorted(set(kinds))) + (OTHER,)
        self.codes = tuple(sorted(set(codes))) + (OTHER,)
        self.info = dict(info or {})
        self._kind_index = {k: i for i, k in enumerate(self.kinds)}
        self._code_index = {c: i for i, c in enumerate(self.codes)}
        n = 0

        def take(count: int) -> int:
            nonlocal n
            start = n
            n += count
            return start

        self._requests = take(len(VERDICTS) * len(self.kinds))
        self._problems = take(len(self.codes))
        self._warnings = take(1)
        self._bad = take(len(BAD_REQUEST_REASONS))
        self._internal = take(1)
        self._timeouts = take(1)
        self._in_flight = take(1)
        self._reloads = take(len(RELOAD_RESULTS))
        self._buckets = take(len(BUCKETS) + 1)  # the last one is +Inf
        self._sum = take(1)
        self.width = n
        self.slots = max(1, slots)
        # Anonymous mappings are MAP_SHARED: forked workers write into the same pages.
        self._map = mmap.mmap(-1, 8 * self.width * self.slots)
        self._all = memoryview(self._map).cast("d")
        self.bind(0)

    def bind(self, slot: int) -> None:
        """Make this process write into row `slot` (a worker calls it right after the fork)."""
        self.slot = slot
        self._row = self._all[slot * self.width : (slot + 1) * self.width]
        self._row[self._in_flight] = 0.0  # a restarted worker has nothing in flight

    # ----------------------------------------------------------------- updates

    def request(self, kind: str, verdict: str, seconds: float) -> None:
        row = self._row
        k = self._kind_index.get(kind, len(self.kinds) - 1)
        row[self._requests + VERDICTS.index(verdict) * len(self.kinds) + k] += 1
        self.observe(seconds)

    def observe(self, seconds: float) -> None:
        row = self._row
        for i, bound in enumerate(BUCKETS):
            if seconds <= bound:
                row[self._buckets + i] += 1
                break
        else:
            row[self._buckets + len(BUCKETS)] += 1
        row[self._sum] += seconds

    def problem(self, code: str, count: int = 1) -> None:
        self._row[self._problems + self._code_index.get(code, len(self.codes) - 1)] += count

    def warnings(self, count: int) -> None:
        self._row[self._warnings] += count

    def bad_request(self, reason: str) -> None:
        self._row[self._bad + BAD_REQUEST_REASONS.index(reason)] += 1

    def internal_error(self) -> None:
        self._row[self._internal] += 1

    def review_timeout(self) -> None:
        self._row[self._timeouts] += 1

    def reload(self, ok: bool) -> None:
        self._row[self._reloads + (0 if ok else 1)] += 1

    def enter(self) -> None:
        self._row[self._in_flight] += 1

    def leave(self) -> None:
        self._row[self._in_flight] -= 1

    # ----------------------------------------------------------------- exposition

    def _sum_of(self, index: int) -> float:
        all_, width = self._all, self.width
        return sum(all_[s * width + index] for s in range(self.slots))

    def render(self) -> bytes:
        p = PREFIX
        out: list[str] = []

        def family(name: str, kind: str, help_: str) -> None:
            out.append(f"# HELP {p}{name} {help_}")
            out.append(f"# TYPE {p}{name} {kind}")

        family("admission_requests_total", "counter", "AdmissionReview requests answered, by object kind and verdict.")
        for v, verdict in enumerate(VERDICTS):
            for k, kind in enumerate(self.kinds):
                value = self._sum_of(self._requests + v * len(self.kinds) + k)
                out.append(f'{p}admission_requests_total{{kind="{_escape(kind)}",verdict="{verdict}"}} {_num(value)}')

        family("admission_duration_seconds", "histogram", "Time from the start of a /validate request to its answer.")
        cumulative = 0.0
        for i, bound in enumerate(BUCKETS):
            cumulative += self._sum_of(self._buckets + i)
            out.append(f'{p}admission_duration_seconds_bucket{{le="{bound}"}} {_num(cumulative)}')
        cumulative += self._sum_of(self._buckets + len(BUCKETS))
        out.append(f'{p}admission_duration_seconds_bucket{{le="+Inf"}} {_num(cumulative)}')
        out.append(f"{p}admission_duration_seconds_sum {repr(self._sum_of(self._sum))}")
        out.append(f"{p}admission_duration_seconds_count {_num(cumulative)}")

        family("problems_total", "counter", "Problems found in admitted objects, by rule code.")
        for c, code in enumerate(self.codes):
            value = self._sum_of(self._problems + c)
            if value or code == OTHER:
                out.append(f'{p}problems_total{{code="{_escape(code)}"}} {_num(value)}')

        family("warnings_total", "counter", "Warnings returned to API clients.")
        out.append(f"{p}warnings_total {_num(self._sum_of(self._warnings))}")

        family("bad_requests_total", "counter", "HTTP requests refused before a review could be answered, by reason.")
        for r, reason in enumerate(BAD_REQUEST_REASONS):
            out.append(f'{p}bad_requests_total{{reason="{reason}"}} {_num(self._sum_of(self._bad + r))}')

        family("internal_errors_total", "counter", "Reviews dralint failed to judge; answered as --on-error says.")
        out.append(f"{p}internal_errors_total {_num(self._sum_of(self._internal))}")

        family("review_timeouts_total", "counter", "Reviews not judged within --review-timeout (also counted as internal errors).")
        out.append(f"{p}review_timeouts_total {_num(self._sum_of(self._timeouts))}")

        family("in_flight_requests", "gauge", "Requests being served now.")
        out.append(f"{p}in_flight_requests {_num(self._sum_of(self._in_flight))}")

        family("certificate_reloads_total", "counter", "Reloads of the serving certificate after its files changed.")
        for r, result in enumerate(RELOAD_RESULTS):
            out.append(f'{p}certificate_reloads_total{{result="{result}"}} {_num(self._sum_of(self._reloads + r))}')

        family("info", "gauge", "Build and configuration of this webhook.")
        labels = ",".join(f'{k}="{_escape(v)}"' for k, v in sorted(self.info.items()))
        out.append(f"{p}info{{{labels}}} 1")
        return ("\n".join(out) + "\n").encode("utf-8")
