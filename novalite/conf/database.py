"""[database] options, as oslo.db names them."""

from oslo_config import cfg

database_group = cfg.OptGroup("database", title="Database options")

opts = [
    cfg.StrOpt(
        "connection",
        secret=True,
        help="SQLAlchemy URL of the database. Unset means SQLite at "
        "$state_path/novalite.sqlite. Examples: postgresql+psycopg://user@127.0.0.1/nova, "
        "mysql+pymysql://root@127.0.0.1/nova.",
    ),
    cfg.BoolOpt("connection_debug", default=False, help="Log every SQL statement."),
    cfg.IntOpt("max_pool_size", default=20, min=1, help="Connections kept in the pool."),
    cfg.IntOpt("max_overflow", default=40, min=0, help="Connections allowed above the pool."),
    cfg.IntOpt(
        "max_retries",
        default=10,
        min=-1,
        help="Connection attempts at start-up (-1: forever) before giving up.",
    ),
    cfg.IntOpt("retry_interval", default=2, min=1, help="Seconds between connection attempts."),
    cfg.IntOpt(
        "sqlite_busy_timeout",
        default=30,
        min=1,
        help="Seconds a SQLite writer waits for another writer before retrying.",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(database_group)
    conf.register_opts(opts, group=database_group)


def list_opts() -> dict:
    return {database_group: opts}
