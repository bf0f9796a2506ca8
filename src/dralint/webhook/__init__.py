"""`dralint serve`: the admission webhook front door.

Nothing here is imported on the lint path: `dralint.cli` imports
`dralint.webhook.cli` only for `dralint serve`, and the HTTP stack (uvicorn,
httptools, uvloop) only once the server starts.

    review.py   AdmissionReview in, AdmissionReview out (no HTTP, no I/O)
    app.py      the ASGI application: routes, body limit, read deadline, logs, metrics
    judging.py  one review from bytes to answer, in forked judge processes with a time budget
    metrics.py  Prometheus counters in shared memory, summed over the workers
    tls.py      server TLS context, reloaded when the certificate files change
    server.py   uvicorn, the read-timeout guard, the worker supervisor, signals
    cli.py      argument parsing
"""
