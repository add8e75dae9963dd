"""``python -m probe`` behaves like the ``probe`` command."""

from probe.cli import main

if __name__ == "__main__":
    main()
