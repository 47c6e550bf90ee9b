"""novalite-scheduler: the scheduler service, on its own."""

from novalite.cmd import service_main
from novalite.service import assembly


def main() -> None:
    service_main.run(assembly.scheduler)


if __name__ == "__main__":
    main()
