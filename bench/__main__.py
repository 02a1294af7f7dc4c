"""Atrium's benchmarks: `make bench` runs them all, `make bench ARGS="healthz"` one of them.

Each benchmark runs against a database of its own (`<name>_bench`, next to DATABASE_URL's,
dropped and re-created), so figures do not depend on the development data. Results are printed;
the figures worth keeping go into bench/RESULTS.md with the command that produced them.
"""

import argparse
import sys

from bench import common


def main(argv: list[str]) -> int:
    benchmarks = common.benchmarks()
    parser = argparse.ArgumentParser(
        prog="python -m bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "names",
        nargs="*",
        choices=[[], *benchmarks],
        metavar="name",
        help=f"benchmarks to run (default: all): {', '.join(benchmarks)}",
    )
    args, rest = parser.parse_known_args(argv)
    for name in args.names or list(benchmarks):
        print(f"\n=== {name} ===", flush=True)
        benchmarks[name](rest)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
