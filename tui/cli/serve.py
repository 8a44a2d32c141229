"""``ponder serve``: the app in a web browser, through ``textual-serve``.

Each browser tab that opens the page starts its own ``ponder`` process (the same Python that
runs this command, ``python -m tui.cli``), whose screen travels over a websocket. Only the
owner drives it: the page and the websocket need the secret token in the printed address, and
a websocket must come from the page itself (:mod:`tui.web`). The server binds to 127.0.0.1
unless told otherwise, and binding elsewhere is said out loud.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from typing import TYPE_CHECKING, Any

from tui.cli.usage import UsageError
from tui.exitcodes import ExitCode

if TYPE_CHECKING:
    import argparse

    from tui.cli.kinds import _SubParsers

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "add_parser", "app_command", "run"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAX_CLIENTS = 4


def add_parser(sub: _SubParsers, **common: Any) -> None:
    """``ponder serve [--host HOST] [--port PORT] [--public-url URL]``."""
    p = sub.add_parser(
        "serve",
        help="serve the app in a web browser",
        description="Serve the app in a web browser (textual-serve): open the printed address "
        "and every tab runs its own ponder. The address holds a secret token made at each "
        "start: without it no page is given and no app starts, and the app's websocket only "
        "answers its own page. It listens on 127.0.0.1 unless --host says otherwise. In the "
        "browser the API key is sent only to the server it was set for, and no file of this "
        "machine can be opened unless --files names a folder. Ctrl-C stops it.",
        **common,
    )
    p.add_argument(
        "--host", default=DEFAULT_HOST, help=f"address to listen on ({DEFAULT_HOST}: this machine)"
    )
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to listen on ({DEFAULT_PORT})"
    )
    p.add_argument(
        "--public-url",
        metavar="URL",
        help="the address browsers reach the server at, when it is not http://HOST:PORT "
        "(behind a proxy, or listening on 0.0.0.0)",
    )
    p.add_argument(
        "--max-clients",
        type=int,
        default=DEFAULT_MAX_CLIENTS,
        metavar="N",
        help=f"browser tabs that may play at once, each its own app process "
        f"({DEFAULT_MAX_CLIENTS}); more are refused",
    )
    p.add_argument(
        "--files",
        metavar="DIR",
        help="the folder whose puzzle files the app's Open file dialog may show and open "
        "(off by default: in the browser, no file of this machine can be opened)",
    )
    p.set_defaults(run=run, parser=p)


def app_command() -> list[str]:
    """The command each browser session runs: this Python, this command line."""
    return [sys.executable, "-m", "tui.cli"]


def run(args: argparse.Namespace) -> int:
    """``ponder serve``: 0 when stopped with Ctrl-C; 2 when the address cannot be used."""
    host: str = args.host
    port: int = args.port
    if not 1 <= port <= 65535:
        raise UsageError(f"--port must be 1 to 65535, not {port}")
    addresses = _addresses(host, port)
    _check_free(host, port, addresses)
    public_url = args.public_url or f"http://{_url_host(host)}:{port}"
    if not public_url.startswith(("http://", "https://")):
        raise UsageError("--public-url must start with http:// or https://")
    if not all(_loopback(address) for address in addresses):
        print(
            f"ponder: warning: listening on {host}, not only on this machine: anyone who can "
            f"reach port {port} can use the app, and the model of the configured API key at "
            "your cost. Use --host 127.0.0.1 (the default) to keep it to yourself.",
            file=sys.stderr,
        )
        if _wildcard(addresses) and not args.public_url:
            print(
                f"ponder: the page tells browsers to connect to {public_url}; give "
                "--public-url with this machine's address for browsers elsewhere.",
                file=sys.stderr,
            )
    if not 1 <= args.max_clients <= 64:
        raise UsageError(f"--max-clients must be 1 to 64, not {args.max_clients}")
    files = _files_folder(args.files)
    from tui.served import environment
    from tui.web import GuardedServer

    server = GuardedServer(
        app_command(),
        host=host,
        port=port,
        public_url=public_url,
        max_clients=args.max_clients,
        app_env=environment(files),
        loopback=all(_loopback(address) for address in addresses),
    )
    shown = "off" if files is None else files
    print(
        f"ponder serve: open {server.page_url}\n"
        "  The token in this address keeps everyone else out: share it with no one. "
        f"Files: {shown}. Ctrl-C stops.",
        flush=True,
    )
    try:
        server.serve()
    except OSError as exc:  # taken between the check and the bind
        raise UsageError(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None
    return ExitCode.OK


def _files_folder(given: str | None) -> str | None:
    """The absolute folder of ``--files``; a usage error when it is no folder."""
    if given is None:
        return None
    folder = os.path.realpath(os.path.expanduser(given))
    if not os.path.isdir(folder):
        raise UsageError(f"--files {given!r}: no such folder")
    return folder


def _addresses(host: str, port: int) -> list[tuple[Any, ...]]:
    """The socket addresses ``host`` names; a usage error when it names none."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        problem = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"--host {host!r}: this machine cannot resolve it ({problem})") from None
    return [(family, address) for family, _, _, _, address in infos]


def _check_free(host: str, port: int, addresses: list[tuple[Any, ...]]) -> None:
    """A usage error, before the server starts, when the port is taken or the host is not
    this machine's: the server would otherwise fail with a traceback after its banner."""
    for family, address in addresses:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            # The same option the server sets: a port left in TIME_WAIT is free to it.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                reason = exc.strerror or str(exc)
                if exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
                    reason = "the port is in use; choose another with --port"
                elif exc.errno in (99, 49, 10049):  # EADDRNOTAVAIL
                    reason = "that address is not this machine's"
                elif exc.errno in (13, 10013):  # EACCES
                    reason = "permission denied; ports below 1024 need privileges"
                raise UsageError(f"cannot listen on {host} port {port}: {reason}") from None


def _loopback(address: tuple[Any, ...]) -> bool:
    try:
        return ipaddress.ip_address(str(address[1][0]).split("%")[0]).is_loopback
    except ValueError:
        return False


def _wildcard(addresses: list[tuple[Any, ...]]) -> bool:
    for _, address in addresses:
        try:
            if ipaddress.ip_address(str(address[0]).split("%")[0]).is_unspecified:
                return True
        except ValueError:
            continue
    return False


def _url_host(host: str) -> str:
    """``host`` as it is written in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
