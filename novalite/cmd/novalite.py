"""`novalite`: the all-in-one cloud (`novalite all-in-one`, `novalite all-in-one --status`)."""

from __future__ import annotations

import argparse
import os
import sys

from novalite import __version__, affinity, http_server, state_dir
from novalite.cmd import common
from novalite.conf import CONF

_OSLO_OPTIONS = ("Options of every novalite command are accepted too: --config-file FILE, "
                 "--config-dir DIR, --debug/-d (alias --verbose: heartbeats, periodic "
                 "reports and each RPC), --log-file FILE.")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="novalite", description="novalite: an OpenStack-compatible compute cloud.",
        epilog=_OSLO_OPTIONS)
    parser.add_argument("--version", action="version", version=f"novalite {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    aio = sub.add_parser("all-in-one", help="run every service in this process on SQLite, "
                         "in-process messaging and simulated hosts (or real QEMU guests)",
                         epilog=_OSLO_OPTIONS)
    aio.add_argument("--state-dir", help="directory for the database and state "
                     "(default ./.novalite, or [DEFAULT] state_path)")
    aio.add_argument("--port", type=int, help="port of the HTTP APIs (default 8774, or "
                     "[DEFAULT] osapi_compute_listen_port)")
    aio.add_argument("--hosts", type=int, help="number of compute hosts: simulated ones "
                     "(default 4, or [fake_driver] hosts), or with --driver qemu QEMU "
                     "computes on this machine (default 1, or [qemu] hosts)")
    aio.add_argument("--listen", help="address to listen on (default 0.0.0.0)")
    aio.add_argument("--driver", help="virt driver: fake (simulated hosts, the default) or "
                     "qemu (one host running real guests; or [DEFAULT] compute_driver)")
    aio.add_argument("--status", action="store_true", help="print the banner of the "
                     "all-in-one running on the state directory and exit (exit code 1 "
                     "when none is running)")
    return parser


@common.exits_cleanly_on_bad_config
def main(argv: list[str] | None = None) -> None:
    args, rest = _parser().parse_known_args(sys.argv[1:] if argv is None else argv)
    common.parse_args(rest)
    if args.state_dir:
        CONF.set_override("state_path", os.path.abspath(args.state_dir))
    if args.port is not None:
        CONF.set_override("osapi_compute_listen_port", args.port)
    if args.hosts is not None:
        CONF.set_override("hosts", args.hosts, group="fake_driver")
        CONF.set_override("hosts", args.hosts, group="qemu")
    if args.listen:
        CONF.set_override("osapi_compute_listen", args.listen)
    if args.driver:
        CONF.set_override("compute_driver", args.driver)
    if args.status:
        sys.exit(print_status())
    run_all_in_one()


def print_status() -> int:
    banner = state_dir.status(CONF.state_path)
    if banner is None:
        print(f"No novalite all-in-one is running on the state directory {CONF.state_path}; "
              "start one with 'make run' (or 'novalite all-in-one').")
        return 1
    print(banner)
    return 0


def run_all_in_one() -> None:
    """Own the state directory, check the port, then start: every refusal comes before
    anything is written."""
    lock = state_dir.StateDirLock(CONF.state_path)
    lock.acquire()
    try:
        _serve(lock)
    finally:
        lock.release()


def _serve(lock: state_dir.StateDirLock) -> None:
    from novalite.all_in_one import AllInOne
    from novalite.virt.qemu.guest_image import GuestImageError

    host, port = CONF.osapi_compute_listen, CONF.osapi_compute_listen_port
    problem = http_server.port_problem(host, port)
    if problem:
        raise common.CommandError(
            f"cannot listen on {host}:{port}: {problem}; is another cloud running there? "
            "Stop it, or start with --port N")
    affinity.pin()
    cloud = AllInOne(CONF.fake_driver.hosts)
    try:
        cloud.prepare()
    except GuestImageError as exc:
        raise common.CommandError(str(exc)) from None
    cloud.start_control_plane()
    server = http_server.make_server(host, port)
    thread = None
    try:
        thread = http_server.start_in_thread(server)
        port = http_server.bound_port(server)
        cloud.bootstrap_identity(port)
        cloud.start_computes(f"http://127.0.0.1:{port}", server.config.app)
        banner = cloud.banner(port)
        lock.publish(banner)
        print(banner, flush=True)
        http_server.freeze_heap()
        http_server.wait_for_signal(thread)
    finally:
        cloud.stop(stop_http=lambda: http_server.stop(server, thread))


if __name__ == "__main__":
    main()
