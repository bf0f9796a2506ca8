"""`dralint serve`: command-line options of the admission webhook.

    dralint serve --tls-cert FILE --tls-key FILE [--port 8443] [--config .dralint.yaml]

Lint settings (--kubernetes-version, --select, --ignore, --severity, --policy,
--rules-dir, --fail-on) mean what they mean for `dralint lint`, and come from
`.dralint.yaml` the same way (build_options). Exit codes: 0 after a clean
shutdown, 1 when a worker failed, 2 for a usage or start-up error.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import sys
from typing import Any, Sequence

from .. import __version__, runtime, schemas
from ..arguments import Parser, UsageError, add_rule_arguments, overrides_from
from ..config import ConfigError, build_options
from ..k8s.resource import GROUP
from ..model import Severity
from ..pipeline.run import known_codes
from ..registry import RuleLoadError, all_rules
from ..schemas import DEFAULT_RELEASE, RELEASES
from . import logs, tls
from .app import DEFAULT_JUDGE_MEMORY, DEFAULT_MAX_BUFFERED, DEFAULT_MAX_IN_FLIGHT, Settings, WebhookApp
from .metrics import Metrics
from .review import IMMUTABLE_CODE, Policy, decide
from .server import ServerSettings, serve

DEFAULT_PORT = 8443


def _positive(kind: type) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
        return value

    return parse


def serve_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="dralint serve",
        description="Run dralint as a Kubernetes validating admission webhook (HTTPS, AdmissionReview admission.k8s.io/v1 on POST /validate).",
        epilog="Endpoints: POST /validate, GET /healthz, GET /readyz, GET /metrics. See docs/webhook.md.",
    )
    net = parser.add_argument_group("server")
    net.add_argument("--tls-cert", required=True, metavar="FILE", help="serving certificate (PEM, chain allowed); reloaded when the file changes")
    net.add_argument("--tls-key", required=True, metavar="FILE", help="private key of --tls-cert (PEM); reloaded with it")
    net.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0; '::' for IPv6)")
    net.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT}; 0 picks a free one, logged as 'listening')")
    net.add_argument("--workers", type=_positive(int), default=1, metavar="N", help="worker processes sharing the port (default 1; one per core is plenty)")
    net.add_argument("--on-error", choices=("allow", "deny"), default="deny", help="answer when dralint itself fails on a review or runs out of time (default deny); always logged and counted")
    net.add_argument("--review-timeout", type=_positive(float), default=3.0, metavar="SECONDS", help="time to judge one review once its body is read, queueing included; then it is answered per --on-error (default 3, below the 5 s timeoutSeconds of deploy/webhook.yaml)")
    net.add_argument("--judges", type=_positive(int), default=2, metavar="N", help="judge processes per worker, each judging one review at a time (default 2: one heavy review never holds up the rest)")
    net.add_argument("--max-body-bytes", type=_positive(int), default=3 * 1024 * 1024, metavar="BYTES", help="largest request body accepted (default 3 MiB, as the API server)")
    net.add_argument("--max-in-flight", type=_positive(int), default=DEFAULT_MAX_IN_FLIGHT, metavar="N", help=f"reviews each worker reads or judges at once; past it a review is answered 503 with Retry-After (default {DEFAULT_MAX_IN_FLIGHT})")
    net.add_argument("--max-buffered-bytes", type=_positive(int), default=DEFAULT_MAX_BUFFERED, metavar="BYTES", help=f"request body bytes each worker holds at once, counted from Content-Length before reading; past it a review is answered 503 with Retry-After (default {DEFAULT_MAX_BUFFERED}: eight 3 MiB bodies; at least --max-body-bytes)")
    net.add_argument("--judge-memory-bytes", type=_positive(int), default=DEFAULT_JUDGE_MEMORY, metavar="BYTES", help=f"memory each judge may take beyond what it shares with its worker; a review that needs more is answered per --on-error (default {DEFAULT_JUDGE_MEMORY}; Linux)")
    net.add_argument("--read-timeout", type=_positive(float), default=10.0, metavar="SECONDS", help="time allowed for a request's headers, and again for its body (default 10)")
    net.add_argument("--idle-timeout", type=_positive(float), default=60.0, metavar="SECONDS", help="close keep-alive connections idle this long (default 60)")
    net.add_argument("--shutdown-timeout", type=_positive(float), default=25.0, metavar="SECONDS", help="after SIGTERM, time given to requests in flight (default 25)")
    net.add_argument("--cert-reload-interval", type=_positive(float), default=10.0, metavar="SECONDS", help="how often the certificate files are checked for changes (default 10)")
    net.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info", help="info logs one line per review (default)")

    lint = parser.add_argument_group("linting (as for dralint lint)")
    lint.add_argument("-k", "--kubernetes-version", metavar="1.NN", help=f"Kubernetes release to judge against: {RELEASES[0]}..{RELEASES[-1]} (default: config, else {DEFAULT_RELEASE})")
    lint.add_argument("--fail-on", choices=("error", "warning"), default=None, help="lowest severity that denies (default: config, else error); lower problems become warnings")
    add_rule_arguments(lint)
    return parser


def serve_command(argv: Sequence[str]) -> int:
    args = serve_parser().parse_args(list(argv))

    logs.setup(args.log_level)
    if importlib.util.find_spec("uvicorn") is None:  # the webhook extra
        print("dralint: error: `dralint serve` needs the webhook extra: pip install 'dralint[webhook]'", file=sys.stderr)
        return 2

    if args.max_buffered_bytes < args.max_body_bytes:
        raise UsageError(f"--max-buffered-bytes ({args.max_buffered_bytes}) must be at least --max-body-bytes ({args.max_body_bytes}): a review of the largest size must fit")
    policy = build_policy(args)

    for label, path in (("--tls-cert", args.tls_cert), ("--tls-key", args.tls_key)):
        try:
            open(path, "rb").close()
        except OSError as exc:
            raise UsageError(f"{label} {path}: {exc.strerror or exc}") from exc
    try:
        tls.new_context(args.tls_cert, args.tls_key)
    except Exception as exc:
        raise UsageError(f"cannot use --tls-cert/--tls-key: {exc}") from exc

    options = policy.options
    codes = _warm_up(policy)
    # Rules, schemas and compiled validators live as long as the process: move them out of the
    # collector's reach, so a full collection does not walk them on some unlucky request, and so
    # forked workers keep sharing their pages (a collection would write to every object it visits).
    runtime.enable()  # the process is the webhook's (dralint.runtime)
    gc.collect()
    runtime.freeze()

    metrics = Metrics(
        kinds=schemas.ALL_DRA_KINDS,
        codes=[*codes, IMMUTABLE_CODE],
        slots=args.workers,
        info={"version": __version__, "kubernetes_version": options.release, "workers": str(args.workers)},
    )
    app = WebhookApp(Settings(policy=policy, metrics=metrics, on_error=args.on_error, max_body=args.max_body_bytes, read_timeout=args.read_timeout,
                              review_timeout=args.review_timeout, judges=args.judges, max_in_flight=args.max_in_flight,
                              max_buffered=args.max_buffered_bytes, judge_memory=args.judge_memory_bytes))
    server_settings = ServerSettings(
        host=args.host,
        port=args.port,
        cert_file=args.tls_cert,
        key_file=args.tls_key,
        workers=args.workers,
        read_timeout=args.read_timeout,
        idle_timeout=args.idle_timeout,
        shutdown_timeout=args.shutdown_timeout,
        cert_reload_interval=args.cert_reload_interval,
    )
    try:
        return serve(app, server_settings)
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from exc


def build_policy(args: argparse.Namespace) -> Any:
    """What reviews are judged with, from the parsed arguments and the config file (as for `dralint lint`)."""
    try:
        options, settings = build_options(overrides_from(args)._replace(target_version=None, format=None))
        fail_on = settings.fail_on
    except (ConfigError, RuleLoadError) as exc:
        raise UsageError(str(exc)) from exc
    if fail_on < Severity.WARNING:
        raise UsageError("fail-on: info would deny on informational findings; use error or warning")
    return Policy(options=options, fail_on=fail_on)


def _warm_up(policy: Any) -> list[str]:
    """Load every rule, compile every schema of the release and build the CEL environment now, not on the
    first review (nor in every judge process: they are forked after this and share it).

    Returns the rule codes known to this configuration (for the metrics' label values).
    """
    options = policy.options
    catalog = schemas.catalog(options.release)
    for api_version in catalog.served_versions():
        for kind in catalog.kinds(api_version):
            request = {
                "uid": "warm-up",
                "operation": "CREATE",
                "kind": {"group": GROUP, "version": api_version.rpartition("/")[2], "kind": kind},
                "object": {"apiVersion": api_version, "kind": kind, "metadata": {"name": "warm-up", "namespace": "default"}},
            }
            decide(request, policy)
            if kind == "ResourceClaim":
                decide(_with_selector(request), policy)
    return sorted(known_codes([*all_rules(options.rules_dirs, plugins=options.plugins), *options.extra_rules]))


def _with_selector(request: dict[str, Any]) -> dict[str, Any]:
    claim = dict(request["object"])
    request_ = {"deviceClassName": "warm-up", "selectors": [{"cel": {"expression": "device.driver == 'warm-up'"}}]}
    if claim["apiVersion"].endswith(("/v1", "/v1beta2")):  # the fields moved under `exactly`
        request_ = {"exactly": request_}
    claim["spec"] = {"devices": {"requests": [{"name": "warm-up", **request_}]}}
    return {**request, "object": claim}
