"""novalite-compute --host NAME: one hypervisor host's compute service.

It has no database access; everything it stores goes through the conductor.
"""


from novalite.cmd import service_main
from novalite.conf import CONF
from novalite.conf.service import opts as service_opts
from novalite.service import assembly


def main() -> None:
    host_opt = next(o for o in service_opts if o.dest == "host")
    CONF.unregister_opt(host_opt)
    CONF.register_cli_opt(host_opt)  # so that --host NAME works on the command line
    service_main.run(assembly.compute, needs_database=False)




if __name__ == "__main__":
    main()
