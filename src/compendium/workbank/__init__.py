"""WORKBank (Shao et al. 2025): worker automation desire, expert capability and the Human Agency Scale.

Every function takes DataFrames (the raw files as :mod:`compendium.data` loads them) and names the
paper's definition it implements (METHODS.md, section WORKBank). Themes:

* :mod:`.desire` - task desire, thresholds, top/bottom tasks, reasons, sectors, correlations;
* :mod:`.landscape` - the four desire-capability zones, cut-off sweep, bootstrap zone stability;
* :mod:`.agency` - Human Agency Scale levels, tie rules, occupation JSD, the H5 radar;
* :mod:`.skills` - skills ranked by wage and by agency;
* :mod:`.reliability` - Krippendorff's alpha and the mixed model (Table 1);
* :mod:`.external` - Claude.ai usage, YC/arXiv mappings per zone, BLS tables;
* :mod:`.demographics` - desire/agency by group, raking the headline to BLS margins;
* :mod:`.slips` - the paper's slips with evidence;
* :mod:`.authors` - the authors' notebook constructions behind the register's tables;
* :mod:`.sections` - one function per chapter section (a :class:`.sections.Section`);
* :mod:`.build` - :class:`Inputs` (every input read once) and :func:`build`, every section once, as one
  read-only :class:`WorkbankResult`;
* :mod:`.models` - the ``workbank_models`` stage: the sections no zone setting reaches, computed once;
* :mod:`.register` - the result mapped to the register's claim ids (nothing computed, no file read);
* :mod:`.summary` - the words of the chapter, each a function of the result, and its verdict sentences;
* :mod:`.values` - the values and tables the chapter writes;
* :mod:`.views` - the display copies of the chapter's tables;
* :mod:`.figures` and :mod:`.alttext` - the chapter's figures and their alt text;
* :mod:`.provenance` - where each claim is computed (plain data, read by the claims check).
"""

from . import (  # noqa: F401
    agency,
    authors,
    common,
    demographics,
    desire,
    external,
    landscape,
    reliability,
    sections,
    skills,
    slips,
)
from .build import Inputs, WorkbankResult, build, build_models  # noqa: F401
