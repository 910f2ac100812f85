"""What the test modules share: the repository's root and the peer suites beside it."""

import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def suites():
    """The peer suites (PERP_SUITES, else ../shared/suites beside the repository), or None."""
    env = os.environ.get("PERP_SUITES")
    for d in ([pathlib.Path(env)] if env else []) + [ROOT.parent / "shared" / "suites"]:
        if (d / "siconos").is_dir():
            return d
    return None
