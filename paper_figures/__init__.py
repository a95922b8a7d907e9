"""Declarative specs of the reproduced figures (installed as ``optsched.figures``)."""
