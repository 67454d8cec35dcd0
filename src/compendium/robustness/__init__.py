"""Robustness: do the three studies' findings survive other reasonable analysis choices?

A wing like the studies, one module a job:

* :mod:`.sweeps` - the grids (the papers' settings, :func:`.sweeps.parse_grid`) and the four sweeps, each
  calling the study's own functions;
* :mod:`.sampling` - the "how sure is this?" resampling checks at the paper's setting;
* :mod:`.findings` - whether each finding holds at every setting: a pure function of the sweep results;
* :mod:`.build` - ``build(params, inputs) -> RobustnessResult``, the chapter's whole computation, once;
* :mod:`.summary` - every number and phrase of the prose, from the result;
* :mod:`.values` - the ``rob.*`` values of ``results/robustness/values.json``, from the result;
* :mod:`.views` - the display copies of the chapter's tables;
* :mod:`.figures` and :mod:`.alttext` - the chapter's figures and their alt texts.
"""
