"""The comparison suite: ``graphblast-py compare`` (docs/suite.md).

``main(argv)`` is the command line; :class:`Runner` runs graphs x algorithms x
systems and returns the report dict (the JSON file's content);
``register_system`` adds a :class:`System` to every later run.
"""
from .cli import main
from .run import Runner
from .systems import ALGORITHMS, NotAvailable, System, register_system, unregister_system

__all__ = ["main", "Runner", "System", "NotAvailable", "register_system", "unregister_system",
           "ALGORITHMS"]
