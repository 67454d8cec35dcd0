"""The HUMANE method at scale: simulated leaderboards, when information gain pays off, whether P(best) is
calibrated, and pooled against per-group boards.

A wing like the studies (the study contract, ``tests/test_study_contract.py``), one module a job:

* :mod:`.simulate` - one grid point's simulated leaderboard studies, one repetition at a time;
* :mod:`.grid` - the grids: the small default one the stage computes, and the book's, from committed blocks;
* :mod:`.sweep` - the grid as a Dask program (resumable, any cluster; ``python -m compendium.humane.sweep``);
* :mod:`.report` - the answers from the sweep's rows: judgements needed, savings and their verdicts,
  calibration, consolidation, recovery curves;
* :mod:`.digits` - each number as printed, to the digits its Monte Carlo interval supports;
* :mod:`.build` - ``Inputs.load(params)`` and ``build(params, inputs) -> HumaneResult``, the chapter's whole
  computation, once (``params``: ``compendium.pipeline.params.study_params("humane", ...)``);
* :mod:`.register` - no register values: no source prints this chapter's numbers;
* :mod:`.summary` - every number and phrase of the prose, and its verdict sentences (``PHRASES``);
* :mod:`.values` - ``results/humane/values.json`` and the chapter's tables;
* :mod:`.views` - the display copies of the chapter's tables;
* :mod:`.figures` and :mod:`.alttext` - the chapter's figure and its alt text;
* :mod:`.provenance` - which function (and test) computes each ``h_*`` value.
"""
