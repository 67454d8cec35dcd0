"""The audit of the judges and the leaderboards: can the PWB panel and the two leaderboards be trusted?

A wing like the studies (the study contract, ``tests/test_study_contract.py``), one module a job:

* :mod:`.judges` - the PWB judge panel: which judge is which model, each judge's preference for its own
  model, what the median rule does with it (recusal, leave one judge out, when a judge decides), agreement
  and the effective panel size, length bias;
* :mod:`.ranks` - the leaderboards' rank resolution (simultaneous tie groups) and whether the pairwise
  results are consistent with one Bradley-Terry order (with its power);
* :mod:`.votes` - the human votes row by row: position, style-controlled Bradley-Terry, heavy raters, and
  HUMAINE's own ranking model against the per-group consolidation;
* :mod:`.build` - ``Inputs.load(params)`` and ``build(params, inputs) -> AuditResult``, once
  (``params``: ``compendium.pipeline.params.study_params("audit", ...)``);
* :mod:`.register` - no register values: no source prints this chapter's numbers;
* :mod:`.summary` - every number and phrase of the prose, from the result (``PHRASES``);
* :mod:`.values` - the ``audit.*`` values of ``results/audit/values.json`` and the chapter's tables;
* :mod:`.views`, :mod:`.figures` and :mod:`.alttext` - display tables, figures and their alt texts;
* :mod:`.provenance` - which function (and test) computes each ``audit.*`` value.
"""
