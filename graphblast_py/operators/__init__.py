"""Operators and the predefined operator namespaces."""
from .core import BinaryOp, IndexUnaryOp, Monoid, Semiring, UnaryOp
from .predefined import binary, indexunary, monoid, semiring, unary

__all__ = ["UnaryOp", "BinaryOp", "IndexUnaryOp", "Monoid", "Semiring",
           "unary", "binary", "indexunary", "monoid", "semiring"]
