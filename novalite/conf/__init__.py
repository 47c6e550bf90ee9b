"""Configuration: every option group of novalite, registered on one oslo.config CONF.

Option names follow Nova wherever Nova has the option, so a nova.conf fragment means the
same here. Each module of this package defines one group (or one concern of [DEFAULT]).
"""

from oslo_config import cfg

from novalite.conf import opts

CONF = cfg.CONF

for _module in opts.MODULES:
    _module.register_opts(CONF)
