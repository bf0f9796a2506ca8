"""The serving TLS context, swapped for a new one when the certificate files change.

cert-manager renews a certificate by rewriting the Secret; the kubelet then
swaps the mounted files (an atomic symlink flip). Each worker polls the two
files' identity (inode, size, mtime); on a change it builds a *new* context
from them, which checks that key and certificate belong together, and only
then makes it current. A half-rotated pair (new certificate, old key) fails
that check, is logged and counted, and is tried again on the next poll while
the old certificate keeps serving.

The listening socket keeps one SSLContext for its whole life, so the swap goes
through its SNI callback: it runs for every ClientHello (with or without a
server name) and points the connection at the current context. Connections
already open keep the certificate they were made with.
"""

from __future__ import annotations

import asyncio
import logging
import os
import ssl
from typing import Callable

log = logging.getLogger("dralint.webhook.lifecycle")


def _stamp(path: str) -> tuple[int, int, int]:
    st = os.stat(path)  # follows the kubelet's ..data symlink
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def new_context(cert_file: str, key_file: str) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.set_alpn_protocols(["http/1.1"])  # the API server would otherwise try h2
    ctx.load_cert_chain(cert_file, key_file)
    return ctx


class ReloadingContext:
    def __init__(self, cert_file: str, key_file: str, on_reload: Callable[[bool], None] | None = None):
        self.cert_file = cert_file
        self.key_file = key_file
        self.on_reload = on_reload
        self._stamps = self._read_stamps()
        self.current = new_context(cert_file, key_file)  # errors here are start-up errors
        # The context the listener holds; it only hands each handshake to `current`.
        self.listener = new_context(cert_file, key_file)
        self.listener.sni_callback = self._select

    def _read_stamps(self) -> tuple:
        return (_stamp(self.cert_file), _stamp(self.key_file))

    def _select(self, sslobj: ssl.SSLObject, server_name: str | None, _ctx: ssl.SSLContext) -> None:
        current = self.current
        if sslobj.context is not current:
            sslobj.context = current
        return None

    def check(self) -> bool | None:
        """Reload if the files changed: True reloaded, False failed (old one kept), None unchanged."""
        try:
            stamps = self._read_stamps()
        except OSError as exc:
            if self._stamps is not None:
                log.warning("certificate files unreadable, keeping the current certificate", extra={"error": str(exc)})
                self._stamps = None
                self._report(False)
            return False
        if stamps == self._stamps:
            return None
        try:
            ctx = new_context(self.cert_file, self.key_file)
        except (ssl.SSLError, OSError, ValueError) as exc:
            # Most often a rotation caught half-way (certificate and key do not match yet): retry next time.
            log.warning("certificate reload failed, keeping the current certificate", extra={"error": str(exc)})
            self._stamps = None
            self._report(False)
            return False
        self.current = ctx
        self._stamps = stamps
        log.info("certificate reloaded", extra={"cert": self.cert_file})
        self._report(True)
        return True

    def _report(self, ok: bool) -> None:
        if self.on_reload is not None:
            self.on_reload(ok)

    async def watch(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            self.check()
