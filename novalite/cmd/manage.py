"""novalite-manage: operator commands (`db sync|version|seed`, `config sample`,
`placement audit [--heal]|sync_aggregates`)."""

from __future__ import annotations

import sys

from oslo_config import cfg

from novalite.cmd import common
from novalite.conf import CONF


def _db_sync() -> int:
    from novalite.db import migration, session

    session.wait_for_database()
    migration.db_sync()
    print(f"Database schema is at version {migration.db_version()}")
    return 0


def _db_seed() -> int:
    """Nova's standard flavors and the novalite-tiny image, as the all-in-one has them."""
    from novalite.db.api import flavors, images
    from novalite.image import seed

    created = flavors.seed_default_flavors()
    image = seed.seed_default_image()
    print(f"Created {created} flavors" + (f" and image {images.DEFAULT_IMAGE_NAME}"
                                          if image else ""))
    return 0


def _db_version() -> int:
    from novalite.db import migration

    print(migration.db_version() or "None (run 'novalite-manage db sync')")
    return 0


def _config_sample() -> int:
    from oslo_config import generator

    conf = cfg.ConfigOpts()
    generator.register_cli_opts(conf)
    conf(["--namespace", "novalite"])
    generator.generate(conf, sys.stdout)
    return 0


def _placement_audit() -> int:
    from novalite.cmd import manage_placement

    return manage_placement.audit(CONF.category.heal)


def _placement_sync_aggregates() -> int:
    from novalite.cmd import manage_placement

    return manage_placement.sync_aggregates()


COMMANDS = {
    ("db", "sync"): _db_sync,
    ("db", "version"): _db_version,
    ("db", "seed"): _db_seed,
    ("config", "sample"): _config_sample,
    ("placement", "audit"): _placement_audit,
    ("placement", "sync_aggregates"): _placement_sync_aggregates,
}


def _add_parsers(subparsers) -> None:
    for category in sorted({c for c, _ in COMMANDS}):
        parser = subparsers.add_parser(category)
        parser.add_argument("action", choices=sorted(a for c, a in COMMANDS if c == category))
        if category == "placement":
            parser.add_argument("--heal", action="store_true",
                                help="audit: remove orphaned allocations and allocate for "
                                     "instances that hold none")


def main(argv: list[str] | None = None) -> int:
    CONF.register_cli_opt(cfg.SubCommandOpt("category", handler=_add_parsers))
    common.parse_args(argv)
    return COMMANDS[(CONF.category.name, CONF.category.action)]()


if __name__ == "__main__":
    sys.exit(main())
