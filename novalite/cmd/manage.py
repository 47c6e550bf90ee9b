"""novalite-manage: operator commands (`db sync|version|seed`, `config sample`,
`bootstrap`, `fernet setup|rotate`, `placement audit [--heal]|sync_aggregates`,
`guest-image build`, `service list`, `cell_v2 ...`), each described by `--help`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from oslo_config import cfg

from novalite.cmd import common, manage_cells
from novalite.conf import CONF


def _db_sync() -> int:
    """Create or upgrade the database schema."""
    from novalite.db import migration, session

    session.wait_for_database()
    migration.db_sync()
    print(f"Database schema is at version {migration.db_version()}")
    return 0


def _db_seed() -> int:
    """Nova's standard flavors and the novalite-tiny image, as the all-in-one has them."""
    from novalite.db.api import flavors
    from novalite.image import db as images
    from novalite.image import seed

    created = flavors.seed_default_flavors()
    image = seed.seed_default_image()
    print(f"Created {created} flavors" + (f" and image {images.DEFAULT_IMAGE_NAME}"
                                          if image else ""))
    return 0


def _db_version() -> int:
    """The schema version of the database."""
    from novalite.db import migration

    print(migration.db_version() or "None (run 'novalite-manage db sync')")
    return 0


def _bootstrap() -> int:
    """Identity's domain, roles, projects, users and catalog, and clouds.yaml."""
    from novalite.db import session
    from novalite.identity import bootstrap

    session.wait_for_database()
    result = bootstrap.bootstrap(bootstrap.base_url(CONF.osapi_compute_listen_port))
    print(f"Identity bootstrapped; credentials in {result.clouds_yaml}\n"
          f"  export OS_CLOUD=novalite OS_CLIENT_CONFIG_FILE={result.clouds_yaml}")
    return 0


def _fernet_setup() -> int:
    """Create identity's Fernet token keys, unless they exist."""
    from novalite.identity import fernet_keys

    created = fernet_keys.setup()
    print(("Created Fernet keys in " if created else "Fernet keys already exist in ")
          + fernet_keys.repository())
    return 0


def _fernet_rotate() -> int:
    """Rotate the Fernet keys: a new primary key, the oldest dropped."""
    from novalite.identity import fernet_keys

    kept = fernet_keys.rotate()
    print(f"Rotated the Fernet keys in {fernet_keys.repository()}; primary key is now "
          f"{max(kept)}, keys kept: {', '.join(map(str, kept))}")
    return 0


def _guest_image_build() -> int:
    """The qemu driver's default guest, built (or found cached) in [qemu] guest_image_dir."""
    from novalite.virt.qemu import guest_image

    try:
        image = guest_image.ensure_built()
    except guest_image.GuestImageError as exc:
        print(f"novalite-manage: {exc}", file=sys.stderr)
        return 1
    print(f"Guest image ({image.kernel_package}) in {image.directory}:\n"
          f"  kernel:  {image.kernel}\n  ramdisk: {image.ramdisk}\n  disk:    {image.disk}\n"
          f"  command line: {guest_image.COMMAND_LINE}")
    return 0


def _config_sample() -> int:
    """Print every option with its help and default, as a sample configuration file."""
    from oslo_config import generator

    conf = cfg.ConfigOpts()
    generator.register_cli_opts(conf)
    conf(["--namespace", "novalite"])
    generator.generate(conf, sys.stdout)
    return 0


def _placement_audit() -> int:
    """Find allocations no live instance holds and instances holding none (--heal fixes
    them); needs the cloud's configuration and its placement API running."""
    from novalite.cmd import manage_placement

    return manage_placement.audit(CONF.category.heal)


def _placement_sync_aggregates() -> int:
    """Mirror every host aggregate's hosts into placement."""
    from novalite.cmd import manage_placement

    return manage_placement.sync_aggregates()


COMMANDS: dict[tuple[str, str | None], Callable[[], int]] = {
    ("db", "sync"): _db_sync,
    ("db", "version"): _db_version,
    ("db", "seed"): _db_seed,
    ("config", "sample"): _config_sample,
    ("placement", "audit"): _placement_audit,
    ("placement", "sync_aggregates"): _placement_sync_aggregates,
    ("fernet", "setup"): _fernet_setup,
    ("fernet", "rotate"): _fernet_rotate,
    ("bootstrap", None): _bootstrap,
    ("guest-image", "build"): _guest_image_build,
    ("service", "list"): manage_cells.service_list,
    ("cell_v2", "list_cells"): manage_cells.list_cells,
    ("cell_v2", "list_hosts"): manage_cells.list_hosts,
    ("cell_v2", "discover_hosts"): manage_cells.discover_hosts,
    **{("cell_v2", action): manage_cells.nothing_to_do
       for action in ("simple_cell_setup", "map_cell0", "create_cell", "map_instances")},
}

CATEGORIES = {
    "bootstrap": "identity's domain, roles, projects, users and catalog, and clouds.yaml",
    "cell_v2": "nova-manage's cells commands: novalite has one cell (list_cells and "
               "list_hosts show it; the setup commands have nothing to do)",
    "config": "the configuration options",
    "db": "the database schema and the default flavors and image",
    "fernet": "identity's Fernet token keys",
    "guest-image": "the qemu driver's default guest (kernel, initramfs, disk)",
    "placement": "keeping placement in step with the instances",
    "service": "the services, as 'openstack compute service list' shows them",
}


def _describe(category: str) -> str:
    """Each action of a category with the first paragraph of its handler's docstring."""
    lines = [f"{CATEGORIES[category]}.", "", "actions:"]
    for (cat, action), handler in sorted(COMMANDS.items(), key=lambda i: i[0][1] or ""):
        if cat == category and action:
            doc = " ".join((handler.__doc__ or "").split("\n\n")[0].split())
            lines.append(f"  {action:18} {doc}")
    return "\n".join(lines)


def _add_parsers(subparsers) -> None:
    for category in sorted(CATEGORIES):
        parser = subparsers.add_parser(category, help=CATEGORIES[category],
                                       description=_describe(category),
                                       formatter_class=argparse.RawDescriptionHelpFormatter)
        actions = sorted(a for c, a in COMMANDS if c == category and a)
        if actions:
            parser.add_argument("action", choices=actions, metavar="action",
                                help=", ".join(actions))
        if category == "placement":
            parser.add_argument("--heal", action="store_true",
                                help="audit: remove orphaned allocations and allocate for "
                                     "instances that hold none")
        if category == "cell_v2":
            parser.add_argument("--verbose", action="store_true",
                                help="discover_hosts: list the hosts of the cell")


@common.exits_cleanly_on_bad_config
def main(argv: list[str] | None = None) -> int:
    CONF.register_cli_opt(cfg.SubCommandOpt("category", handler=_add_parsers,
                                            title="commands", help="(each has --help)"))
    common.parse_args(argv)
    return COMMANDS[(CONF.category.name, getattr(CONF.category, "action", None))]()


if __name__ == "__main__":
    sys.exit(main())
