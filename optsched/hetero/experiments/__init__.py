"""Experiment logic of the HAS/JPS figures and tables (specs in ``paper_figures/hetero``).

The slice has 14 figures and tables, so its experiment logic is a package
with one module per family of figures instead of one ``experiments.py``:

* :mod:`.common` -- instance settings of Sec. VI (``h115``, ``mix111``), the
  checked-row helper, confidence intervals;
* :mod:`.jct` -- Figs. 9-11 and Table IV (normalised JCT, fairness, jobs,
  running times on the same instances);
* :mod:`.sensitivity` -- Figs. 12-15 (alpha, beta, heterogeneity,
  prediction error);
* :mod:`.scale` -- Fig. 16 and Table V (workers K = 15-300);
* :mod:`.resets` -- Figs. 17-18 (reset events, Gavel scale factors);
* :mod:`.categories` -- Table II and Figs. 4-6 (the category landscape).

Every task function checks every placement with the paper's checker and
takes optima from :func:`optsched.core.experiment.optimum`.
"""
