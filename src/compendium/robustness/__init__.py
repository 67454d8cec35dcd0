"""Robustness: do the three studies' findings survive other reasonable analysis choices?

A wing like the studies (the study contract, ``tests/test_study_contract.py``), one module a job:

* :mod:`.sweeps` - the grids (the papers' settings, :func:`.sweeps.parse_grid`) and the four sweeps, each
  calling the study's own functions;
* :mod:`.sampling` - the "how sure is this?" resampling checks at the paper's setting;
* :mod:`.findings` - whether each finding holds at every setting: a pure function of the sweep results;
* :mod:`.build` - ``Inputs.load(params)`` and ``build(params, inputs) -> RobustnessResult``, the chapter's whole
  computation, once (``params``: ``compendium.pipeline.params.study_params("robustness", ...)``);
* :mod:`.register` - no register values: no source prints this chapter's numbers;
* :mod:`.summary` - every number and phrase of the prose, from the result (``PHRASES``);
* :mod:`.values` - the ``rob.*`` values of ``results/robustness/values.json`` and the chapter's tables;
* :mod:`.views` - the display copies of the chapter's tables;
* :mod:`.figures` and :mod:`.alttext` - the chapter's figures and their alt texts;
* :mod:`.provenance` - which function (and test) computes each ``rob.*`` value.
"""
