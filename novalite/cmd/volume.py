"""novalite-volume: the volume manager on its own (Cinder's cinder-volume), serving RPC
for this host's file backend; the volume API is served by novalite-api."""

from novalite.cmd import service_main
from novalite.service import assembly


def main() -> None:
    service_main.run(assembly.volume)


if __name__ == "__main__":
    main()
