"""Only what pyproject.toml cannot say: a wheel that carries txl/_bin/txlc (a native binary) is tagged for this
platform (py3-none-linux_x86_64), not as pure Python; without the binary the wheel stays pure."""

import os

from setuptools import setup
from setuptools.dist import Distribution

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover - newer setuptools ship it
    from setuptools.command.bdist_wheel import bdist_wheel

BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "python", "txl", "_bin", "txlc")


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return os.path.exists(BUNDLED)


class PlatformWheel(bdist_wheel):
    def get_tag(self):
        python, abi, plat = super().get_tag()
        # txlc is a program, not a Python extension: any Python 3 on this platform can use it.
        return ("py3", "none", plat) if os.path.exists(BUNDLED) else (python, abi, plat)


setup(distclass=BinaryDistribution, cmdclass={"bdist_wheel": PlatformWheel})
