"""Identity options, by Keystone's groups and names where Keystone has them ([token],
[fernet_tokens]) and keystonemiddleware's for the token check in front of every API
([keystone_authtoken]); [identity] also holds the bootstrap passwords."""

from oslo_config import cfg

identity_group = cfg.OptGroup("identity", title="Identity (Keystone v3 subset)")
token_group = cfg.OptGroup("token", title="Token issue and lifetime")
fernet_group = cfg.OptGroup("fernet_tokens", title="Fernet key repository")
authtoken_group = cfg.OptGroup("keystone_authtoken", title="Token validation in the APIs")

identity_opts = [
    cfg.StrOpt("admin_password", secret=True,
               help="Password bootstrap gives the user 'admin'. Unset: one is generated "
               "once, kept, and written to <state_path>/clouds.yaml."),
    cfg.StrOpt("demo_password", secret=True,
               help="Password bootstrap gives the user 'demo'. Unset: generated as for "
               "admin_password."),
    cfg.IntOpt("password_hash_rounds", default=14, min=4, max=20,
               help="Cost of the scrypt password hashes made from now on, as Keystone's "
               "option means it for scrypt: log2 of the CPU/memory cost N (14: about 30 "
               "ms a hash or a check here). Existing hashes keep the cost they were "
               "made with and stay valid."),
]

token_opts = [
    cfg.IntOpt("expiration", default=3600, min=60,
               help="Seconds a token stays valid after it is issued."),
]

fernet_opts = [
    cfg.StrOpt("key_repository",
               help="Directory of the Fernet keys tokens are signed with. "
               "Default: <state_path>/fernet-keys."),
    cfg.IntOpt("max_active_keys", default=3, min=1,
               help="Keys kept by a rotation: the staged key 0, the primary and older "
               "secondaries that still validate tokens issued before the rotation."),
]

authtoken_opts = [
    cfg.IntOpt("token_cache_time", default=5, min=0,
               help="Seconds an API keeps a validated token before checking it again. "
               "Revocations made by this process take effect at once; those made by "
               "another API process within this delay. 0 disables the cache."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    for group, opts in list_opts().items():
        conf.register_group(group)
        conf.register_opts(opts, group=group)


def list_opts() -> dict:
    return {identity_group: identity_opts, token_group: token_opts,
            fernet_group: fernet_opts, authtoken_group: authtoken_opts}
