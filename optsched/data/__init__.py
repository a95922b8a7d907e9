"""Data files shipped with optsched (see README.md in this folder)."""
