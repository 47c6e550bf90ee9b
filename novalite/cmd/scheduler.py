"""novalite-scheduler: the scheduler service, on its own."""

from novalite import services
from novalite.cmd import service_main


def main() -> None:
    service_main.run(services.scheduler)


if __name__ == "__main__":
    main()
