"""The number check: every number of an explainer against the source it explains.

Each number of the explainer gets a verdict:

- ``supported``: the source writes the same number (after normalisation) with the same
  unit, no more precision, a compatible hedge, and near the same things.
- ``misattached``: the source has the number, but not near the things the explainer
  ties it to (another model, operator, baseline).
- ``derived``: not written in the source but computable from one source sentence or
  table row, or from two cells of one column of a source table in rows at most eight
  apart that the explainer's sentence names, each by its label or its cell's figure
  ("PP2-512 is about twice as fast as PP2-256" for 2,694,493 and 1,362,998 under "Global
  TPS", a bare column's cells of its measure; not "2x faster" where the sentence names no
  row, a name over the whole table only, a label two rows share or one inside another
  row's label, "FP8" of "FP8 + fusion"; of the column the
  sentence names as the measure, "twice the TPS/GPU of PP2-256", not as a cell, "on 512
  GPUs"; a speed, "twice as fast", "2x slower than", of a column of throughput or time
  only, and the row it puts before the claim the faster ("faster") or the slower
  ("slower") by it, the base of "N% faster than" the row after; of an amount, the row
  before "twice the", "2x more", "N% more/less than" the one with more or less, the
  part before "N% of"; from two cells of one table row in two columns, only where the
  sentence names both columns, by the words that tell their headers apart, "FP8 is 50%
  faster than BF16" of "BF16 TFLOPS" and "FP8 TFLOPS", or one and a claim whose unsaid
  base is the other, "FlyDSL is 2x faster" of "ATen (ms)" and "FlyDSL (ms)", the right
  way round: "PP2-256 is 98% faster" is no (5,324.21 - 128) / 5,324.21 of its TPS/GPU
  and DP cells): a rounding, the end
  of a range, the span of several values (not for a change: "went from 5,996 to
  7,156" says which came first), a ratio (the larger over the smaller), difference,
  sum or percentage (of two figures at most eight apart in it), or a multiplier
  stated as a gain ("10% faster", "gains 13%" for 1.10x, 1.134x;
  no more digits than the multiplier gives, but a whole percentage it is exactly: "10%
  faster" for 1.1x, not "13%"; a hedged gain of a bound of its side: "up to 13%
  faster" for "peaking at 1.13x", not for 1.134x), said of the names of its whole
  clause, each in the paragraph of that multiplier up to its sentence (its label, not
  only a heading over it: "Grouped GEMM is 10% faster" is no gain of a 1.10x under
  "Dense GEMM"), else ``misattached``. Shown for review; it does not fail the check.
- ``unsupported``: nothing in the source backs it.

Rules, in short (the module's tests spell them out):

- Quantities match after normalisation (``x``/``×``/``times``, ``%``/``percent``,
  thousands separators, dash styles, scale words; a German multiplier with its decimal
  comma, "2,5-mal", "2,5-fach", "1,17- bis 3,66-mal", is 2.5x and 1.17x-3.66x, as a
  decimal comma before a percent or a unit symbol is ("2,5 %", "12,5 ms", in any text),
  and points grouping thousands ("1.362.998", more than one point) are 1,362,998, where
  an English "2,5" stays a list, "1,362,998" and "1,500 ms" thousands, "1.362" a
  decimal, "In 2024,100% of users" a year and 100%, "v1.362.998" a version; see
  :mod:`service.numbers.german`). A bare number in the explainer matches any unit; a
  number with a unit needs the same unit in the source (a bare source figure compared
  with a measured one has its unit: "7,027 tok/s vs 7,156").
- Precision: the explainer may not write more digits than the source (``1.100`` for
  ``1.10`` is unsupported: false precision). Fewer digits is a rounding, ``derived``
  (``1.1`` for ``1.10`` or ``1.13``), and only in the same unit (``1.7`` shapes is no
  rounding of ``1.68x``). An explainer digit matches a source word ("1" for "one").
  A hedged rounding must say which side the source value is on ("nearly 2x" for
  ``1.95x``, "over 2x" for ``2.04x``; not "over 2x" for ``1.95x``), and under a hedge a
  whole number's trailing zeros are no digits when the source value is within 5% of it
  ("about 3,000 commits" for 2,995, derived; not "about 10%" for 7%).
- Ranges match with both ends; a change ("fell from 6,000 to 1,500 tokens", or "from
  6,000 tokens to 1,500 tokens") also with its two ends written apart in one source
  clause, in that order ("grew from 1,500 tokens to 6,000 tokens" is no restatement of
  "from roughly 6,000 tokens down to about 1,500"). A single value inside
  a source range is unsupported; a range end is ``derived``, or ``supported`` when a
  hedge says which end it is ("up to 3.66x" for "1.17x–3.66x"); stated as a mean ("On
  H100 the mean is 1.57x" for "the mean is roughly flat, with individual shapes ranging
  from 0.66x to 1.57x") it is ``unsupported``, unless the source's phrase of the range
  says means ("mean speedups range from ..."; :mod:`.mean`).
- Hedges keep their direction: "up to"/"at most"/"nearly" (upper) only for an upper
  bound in the source, "over"/"at least" (lower) only for a lower bound; "about" and no
  hedge go with anything. "maximum of"/"minimum of" that a thing has ("e4m3fnuz has a
  maximum of 240", "its maximum of 240") is its value, no bound, as "has a max of 240"
  is; else "a max of 8 GPUs" is a bound, as "a maximum of 8 GPUs" is (and "a min of"); in
  the source, a stated maximum ("has a max of 240", "a maximum value of 240", a table
  cell in a row or column named so: "| Max value | 240 |", "| Value (max) | 240 |", a
  "Peak HBM" column;
  not "(min)", minutes) is an upper bound and a minimum a lower one: "up to 240"
  restates it, "at least 240" not. So is a plain
  value in a row or column of the explainer's own table named so ("| Min value | 240 |").
  The explainer's stated minimum keeps its side: a source's maximum, upper bound or
  range high end does not back "has a minimum of 240" (nor a minimum "has a maximum").
  "over" before a bare count that follows a measured figure of its sentence, not right
  after a preposition or "is"/"has", may say "across" ("1.95x faster than ATen over 24
  cases"): so read when the source writes its count after "across" or "over" ("across
  all 24 grouped-GEMM cases"), not a plain "24 cases".
- So do changes: one written with words ("fell by 12%", "a 12% reduction", "12% lower")
  matches the source's signed value ("-12%"), and a signed value the source's words; a
  source figure of a change the other way backs neither ("rises 12%" or "a 12% gain" for
  "-12%" or "fell 12%"). A figure written with no direction ("changed by 12%") does not
  match a signed one: which way is the claim. A change of speed ("10% faster", "2x
  slower", "a 1.5x speedup", "10 % schneller") is turned only by the other word of speed
  ("10% faster" may say "10% lower latency"). Where the two sentences name their subject
  and baseline swapped, the opposite word is right ("SDPA is 2x slower than
  FlashAttention" backs "FlashAttention is 2x faster than SDPA"; :mod:`.turned`); where
  the names do not tell ("The kernel is 10% faster" for "... 10% slower"), it is not.
- Identifiers and versions match verbatim (case-insensitive, hyphen/space tolerant; a
  word of three letters or more and the digit after it joined or apart: "Llama 3 8B" is
  "Llama3-8B", not "Llama3-70B" nor "Llama-38B"; a long name's shorter form, which a
  name near a figure may stand as, goes on with no other number: "Llama-3.1-8B" is said
  in "Llama-3.1 reaches", not in "Llama-3.1-70B reaches"; a release's zeros may be
  written or not, and a series names its releases: "2.14" is "2.14.0", "0.3" is in
  "the 0.3.x series", "0.3.1" is not); a
  version right after a product name must stand after that name in the source, no other
  name between: "CUDA 7.14" for "CUDA 12.6 and ROCm 7.14" is ``misattached``, as are
  "ROCm 2.14" where the source has "PyTorch 2.14" and "TensorFlow 2.14" when the source
  never names TensorFlow. A product's version in the clause of a figure must not be
  another release than the one the source writes in that role where it gives the
  figure (a word before the product or after the version the same): "2,995 commits
  since PyTorch 2.12" for "2,995 commits ... since PyTorch 2.13", "Python 3.14 support
  in 2.14" for "Python 3.15 support in 2.14" are ``misattached``, though the post names
  PyTorch 2.12 and Python 3.14 elsewhere (:mod:`.role`); so is one read with another
  product's version of its clause in place of a figure, in each source clause writing
  that version, where none writes both ("Python 3.14 support in PyTorch 2.14"). A
  setting with its value ("USE_HW_AGNOSTIC=0") said in the words of its clause that a
  source sentence writing only another value of it holds two more of than any writing
  its own ("Setting USE_HW_AGNOSTIC=0 enables the new layers" for "can be enabled by
  setting USE_HW_AGNOSTIC=1", =0 only in "USE_HW_AGNOSTIC=0 vs. USE_HW_AGNOSTIC=1") is
  ``misattached``.
- A shape ("32 × 14336 × 4096", "4096x4096") the source writes the same, sides in
  order, backs each side said of the same names (a side has no noun of its own).
- Code lines of the explainer must be source lines, or their literals verbatim in it.
- The explainer's own marks are no figures: a citation ("[3]") and an enumeration
  starting a sentence or clause ("(1) ...; (2) ..."), as a section's number is not;
  nor, on either side, is a figure's or table's number ("Figure 13", "Table 2").
- A sentence's first word is a name where the source writes it capitalised inside a
  sentence and nowhere in lower case ("Cholesky is ..." for "SVD, QR, Cholesky"; not
  "Gisting", which the source writes only to start a sentence), or where it opens a
  sentence of figures as the one next to it opens with another such word and the same
  verb ("Blackwell needs CUDA 13.3+. Hopper needs CUDA 13.2+."). A code name in lower
  case starts a sentence on both sides ("... wrong results. lu_factor and lu_solve move
  ... 2–9x": the 2–9x is no Cholesky's).
- Binding: the names within six words of a number in the explainer (model, operator,
  format, baseline, hardware: ``MXFP8``, ``RMSNorm``, ``Llama-3.1-8B``, ``Triton``; a
  name word and the lower-case word after it that the source writes as one word, "Flex
  attention" for "FlexAttention", are that name; not
  across a comma or a relative clause, but for a phrase leading the sentence or a
  clause after a semicolon or colon, whose names go with each measured figure up to the
  next one: "On MI325X GPUs, the kernel reaches 6.2x"; "...; on MI325X, fusion added
  17%", and for a phrase ending the sentence after a comma, whose names go with each
  measured figure of its clause before it: "Peak memory stays nearly identical, at about
  39 GB, on DeepSeek-V3 671B") must all occur in the source clause where that number
  stands, its paragraph label (a bold lead-in, or a caption's first sentence: "Figure
  1: ... with Llama3-8B (...)." labels the sentences of its caption) or its headings;
  else ``misattached``. So is a figure (supported or derived otherwise) whose words name
  a thing the source never writes anywhere ("The Triton kernel is 2x faster" of "The
  FlyDSL kernel is 2x faster": "\"triton\" is not in the source"): a CamelCase word
  or acronym, or a capitalised word inside a sentence of English prose (not in a
  heading, table, title-case line or German text), the source writing it in no form
  (case, spaces, hyphens, underscores and a plural aside, nor inside a longer word:
  "Flash Attention" and "flex-attention" are "FlashAttention", "Flex" is of
  "FlexAttention"; an acronym spelt out by content words, "LLM" of "large language
  model", "MoE" of "mixture of experts"); not a chip vendor, a maker right before a
  product the source names ("AWS Graviton3e"), a plain hardware noun, a month or day,
  a field ("AI"), what a bare count counts ("8 LLMs", "256 Prompt Tokens"), nor a name
  before a word of authorship ("the PyTorch team reports"). A sentence's first word is
  such a name only where the explainer writes it capitalised inside a sentence and
  never in lower case: a lone "Triton is 2x faster" passes, as no word list tells it
  from "Training is 2x faster" (:mod:`.absent`).
  A plain hardware noun (GPUs, CPUs, TPUs, NPUs, nodes) named before the figure may
  stand earlier in its source paragraph instead: "Flex attention on RDNA 3 GPUs gets
  roughly 2-8x lower latency" of "FlexAttention on AMD's RDNA3 GPUs ... The result is
  roughly 2-8x lower latency", and one after the figure right after a platform's name,
  "roughly 2-8x faster on RDNA3 GPUs" (not a count of them, "8x MI325X GPUs", nor one
  the source states in a later sentence). A lower-case noun
  of hardware ("nodes", "cards", "machines") is no name: "on RDNA 3 nodes" says the
  scope RDNA3 as "on RDNA 3 GPUs" does. A chip vendor's name right before a product's
  ("AMD's RDNA3 GPUs", "NVIDIA H100"; names.VENDORS) says whose it is and is no name
  of the figure (the product's is); before a plain hardware noun ("AMD GPUs") it is.
  A bare count
  without names must share a noun with the source number, near it ("256 tokens" vs
  "256-token input"; of a source table row's cell, its row label and column header
  too: "the 683,961 of learned routing" of the "Learned" row's Global TPS), a number
  word before it no noun of it ("about twice the 1,362,998 of the other run": not
  "twice"); a number said "of the other" or "of another" thing carries no names of its
  sentence; a number with neither carries the names of its own clause (an
  aside in parentheses does not end it), else those of the figures before it in its
  sentence, else those of the last sentence of its paragraph that bound some (checked
  against the source sentence and the one before it, then the rest of its paragraph
  before it: a paragraph copied from the source passes). Two like figures of one
  sentence said of two names the other way round from the source ("1.95x over Triton
  and 1.20x over ATen"; "MXFP4 and MXFP8 reach 1.58x and 1.68x, respectively") are both
  ``misattached``; two said nearest of a name both have (or one of them so), by the
  names each has alone, a pair of them the source crosses and none it says the same
  way round ("Blackwell needs CUDA 13.3+ and Hopper needs CUDA 13.2+ for cuBLASLt" for
  "... on Blackwell with CUDA 13.2+ and Hopper with CUDA 13.3+"; a bare figure's own
  names those of a phrase leading its clause too, in the explainer and in the source: "On
  Blackwell, CUDA 13.3+ is required; on Hopper, CUDA 13.2+", a clause after a
  coordinator too, ", and on Hopper, CUDA 13.2+" ("... over ATen and with BF16, ...":
  the comma may be left out), where the Blackwell of the sentence's lead ends); so are
  two of neighbouring sentences of a paragraph ("Blackwell needs CUDA 13.3+. Hopper
  needs CUDA 13.2+."). So is one figure, the other left out,
  said of a name the source gives another like figure of its sentence or a neighbouring
  one and not it, where the figure has a name of its own there in the same slot ("on
  Hopper" for "on Blackwell"): "Blackwell needs CUDA 13.2+", "Blackwell and Hopper need
  CUDA 13.2+" (not a name set against it, "..., unlike Blackwell", nor where the
  explainer gives the other value too, of that name or of none). "respectively" pairs
  the k-th figure of a list with the k-th name of
  a list of as many, near or past the figures' six words (the names after the figures
  up to "respectively", else the last list before them: "RMSNorm and TopK, dispatched
  in eager mode, reach 1.17x to 3.66x and 4.82x, respectively"; not a list a name is
  joined to, "ATen's MXFP4 and MXFP8"): each figure is said of its own name, not the
  others'. With no names, a list of as many plain-word phrases before the figures pairs
  the same way ("time to first token and end-to-end latency dropped about 19% and 38%,
  respectively": the 19%'s words are time to first token's). A source's "respectively"
  with no list of names in its sentence pairs its figures with the sentence before: its
  like figures' own names, else its last list of as many ("... 1.20x over Triton and
  1.95x over ATen. Uniform groups reach 1.21x and 2.12x, respectively": "1.21x over
  ATen" is ``misattached``, "the source gives it for Triton"; :mod:`.paired`). The
  sentence right after, in its paragraph, goes on with that pairing when its figures of
  the unit stand in lists of as many and it names nothing the sentence before does not
  ("The projection-dimension cases reach 1.23x and 1.73x": 1.23x is over Triton).
- A measured figure is said of the names of its clause past its six words too (from the
  last clause mark before it to the next, or to the split from the next measured figure:
  a count between is part of the measure): each must stand where the source gives the
  figure, in its sentence, the paragraph before it, its label or headings, and not only
  for another like figure there ("1.10x ... over the faster of ATen and Triton on MXFP8
  GEMM" for the BF16 suite's 1.10x; "1.58x ... across the 17 shapes for MXFP4" for
  "1.58x ... for MXFP8 ... and a 1.68x speedup for MXFP4"); else ``misattached``.
- A name the explainer qualifies with a word the source writes before it, where the
  source writes it after other words too ("Grouped GEMM" in a post of dense, grouped
  and scaled GEMM), names one kind of the thing: the source must say its figure of
  that kind, in the figure's item of its clause (a list's "1.10x ... for the 15-shape
  BF16 dense-GEMM suite, ..., 1.20x ... across all 24 grouped-GEMM cases", where a kind
  after the figure, no clause mark between and the thing named nowhere before it in the
  clause, is said of the items before it too: "about 16% more requests per second and
  about 12% more output tokens per second on identical GPUs"), else, where the clause
  does not give it to another item, in the paragraph before, its label or headings
  ("### Dense GEMM: ..." over the 1.10x); else ``misattached``.
- A figure in a phrase leading the sentence, or its clause after a semicolon or colon
  ("At 2,000 requests per minute, time to first token fell about 19%"), is a condition
  of each measured figure after it: the source must write its value in the sentence of
  that figure, else before it in its paragraph, label or headings where that sentence
  gives no other value of its unit; else ``misattached`` (the source's 19% is "in a load
  test at 350 requests per minute"; the 2,000 is the production peak).
- Beyond names, a figure's clause (from the figure before it, or its sentence's start,
  to the next clause mark or figure) must not say the opposite of the source's clause of
  it: a word of a small list of opposite pairs (enabled/disabled, forward/backward,
  input/output (a prompt is an input, a reply or response an output), prefill/decode,
  aligned/unaligned, dense/sparse, rowwise/colwise, tensorwise or
  blockwise (scaling), cold/warm, static/dynamic, sync/async, minimum/maximum,
  best/worst, highest/lowest, fastest/slowest, largest/smallest, small/large ("over
  100x on larger single matrices" for ">100x on small batched matrices and 2–9x on
  larger single matrices"), short/long (or shorter/longer) said of the same noun of a
  request or a run ("short prompts" for "long prompts" or "long input prompts"; not "as
  long as", "how long", "in the long run", nor "long context" against "short prompts":
  :mod:`.length`); "with"
  or "using" and "without" said of the same thing, "with CUDA graphs" and "without CUDA
  graphs" or "without them" (a pronoun is what the "with" before it in the sentence is
  said of), and "with X disabled" (or off) is "without X"; a negation
  before one, or a word between as in "not been enabled", turns it: "not using CUDA
  graphs", "without enabling") that the source's
  clause says only the other of ("4.02x ... with deterministic algorithms disabled" for
  "4.82x ... disabled, and 4.02x with them enabled") is ``misattached``; a clause with
  both, or neither, leaves it open. Where the source's clause says neither, the
  paragraph before its sentence, its label and headings say its setting, over every
  place the source writes the value: "In the forward pass, the colwise scales kernel
  is 6.2x faster" is ``misattached`` where the one detailed 6.2x follows "The colwise
  scales kernel used in the backward pass" (the summary's "up to a 6.2x speedup" says
  neither); a place that says the explainer's side, or both, leaves it open. A bare
  count with a noun joined to it counts that
  noun, which must stand near the source's figure too ("a 256-token output" is no "256 x
  256 output tile"), and the words after it say what of ("a 512-token prompt" for
  "512-token output" is ``misattached``; "a 30-billion-parameter open-weight model" is
  "30B-parameter model"; a few words say the same: "a 512-token reply" is one). So is a
  count before a noun phrase read: "512 prompt tokens" counts tokens of the prompt (its
  first plural is what it counts; a word of amount, "new", "more", "additional", "extra",
  does not end the phrase, and generated tokens are output; a title-cased phrase of a
  heading or table cell, "512 Prompt Tokens", reads as in lower case, its words no
  names, but for names the source never writes in lower case; so does a table row's
  label of words before a count alone in its cell, and it says what that counts: "|
  Output Tokens | 512 |" is "512 output tokens", "| Commits | 487 |" is no count of
  contributors), not "512-token output" nor "512 output tokens", and "256 tokens of
  output" or "256 new output tokens" counts tokens (not a "256 x 256 output tile"); a
  count of one plural noun counts it where the source's count is followed by words of
  its own ("487 commits" for "2,995 commits from 487 contributors" is ``misattached``;
  so is "1.2 million parameters" for "serves 1.2 million users", "model" in both), and so
  does a name's plural where the source writes the name too ("512 GPUs" for "512 nodes
  with 8 GPUs each"; "40 PRs" for "40 pull requests" passes: an abbreviation) or a
  German noun spelt as its English cognate ("1,2 Millionen Parameter", "8 Experten");
  a hardware noun ("8 GPUs") is backed by a count of a model's name ("8 H100s", "8x
  A100 80GB", "16 Blackwells"; not "8 H100 nodes": ``check.products``);
  its noun may be missing only where the source's figure names nothing of its own after
  it ("8-256 concurrent requests" for "concurrency ranges from 8 to 256"), and an item's
  mark alone in parentheses counts nothing ("3 design principles" is no "In case (3),
  ..."). A name the
  source's clause has only in a parenthesis of figures goes with those figures and the
  figure it follows, not a figure after it ("6.2x on MI325X" for "recovered 89% (5,996
  -> 7,027 tok/s on 8xMI325X GPU), and ... delivered 6.2x").
- No borrowed names: the figures of the source clause are bound to its names the same
  way. A clause that holds all the explainer's names does not back a figure with a unit
  of measure when one of those names is one it gives only another figure of that unit,
  and the explainer names none of the names it gives this figure alone ("MXFP4 gained
  1.58x" for "MXFP8 shows 1.58x and MXFP4 1.68x"; "2x on H100" for "2x on A100 and 1.5x
  on H100", no rounding of 1.5x either): ``misattached``, for the names the source gives
  it. A name both figures have is no borrowing ("TopK is 1.5x faster than Triton" for
  "TopK is 4.82x faster than ATen and 1.5x faster than Triton"), nor is a bare count
  ("across 24 cases": mostly what all the figures around it share). In a list sentence,
  a name the source gives only to an item before the figure's (after the first figure:
  one before it is the subject of all) is borrowed however the explainer names the rest
  ("FlyDSL is 1.20x faster than Triton on BF16" for "1.10x for the 15-shape BF16
  dense-GEMM suite ..., 1.20x ... over Triton ..."), unless the explainer lists figures
  together too ("1.58 and 1.68 times for MXFP8 and MXFP4, respectively"), or the item is
  written from its figure on and says no phrase of that name's word ("over", "with") of
  its own, nor any other item up to it ("FP8 reaches 1.3x over BF16 on MI300X" for "FP8
  reaches 1.5x over BF16 on MI355X and 1.3x on MI300X"; not for "... and 1.3x over FP16
  on MI300X"). So is a later item's own name, unless figures listed bare share it
  ("1.1x, 1.2x and 1.3x faster than Triton"): its first that no other figure has, and
  any in a phrase the figure's item has too ("RMSNorm is 1.20x faster than Triton" for
  "1.20x over Triton across all 24 grouped-GEMM cases, and 1.17x–3.66x over ATen across
  the 22 RMSNorm cases"); another may be a condition said once for all ("1.58x for MXFP8
  and 1.68x for MXFP4 on MI355X"). A figure with no names of its own there borrows the
  name of a figure its clause sets against it ("BF16 baseline of 7,027 tok/s" for "7,027
  tok/s vs 7,156 BF16 baseline"), not of one whose names it merely leaves out ("4.02x
  over ATen" for "4.82x over ATen ..., and 4.02x with them enabled").
- Tables: a bare figure of a source table cell has the unit its column's header gives
  ("2.26" under "ATen (ms)" is 2.26 ms; "36" under "Hours" is 36 h, a header of one
  letter no unit), and a bare count alone in its cell counts what
  a header of one plural noun names ("256" under "GPUs": "256 nodes" is ``misattached``,
  "the source counts gpus there"). A sentence that restates a source table row
  (its label written in it) is backed cell by cell when each figure stands in a
  ``;``-separated part naming its column ("CUDA: 12.6, 13.0 in 2.13; 12.6, 13.2 in
  2.14"); a row of the explainer's own table, by its cells. A figure of a row of the
  explainer's own table is said of its row's label too ("| MXFP8 | 1.68x |" is
  ``misattached`` where the source gives 1.68x for MXFP4). One written as the row
  ("<label>: ...", or a table row) that puts a figure under another column or takes it
  from another row is ``misattached``. In prose too, a cell's figure is said of its own
  column: one tied to the header of another column holding a like figure (same unit of
  measure), and not to its own ("Llama-3.1-8B gains 1.90x with MXFP8" where 1.90x
  stands under MXFP4), is ``misattached``. A figure of another row of the family of
  labels of the row a sentence names is said of the run its own "of" phrase describes:
  by a cell only that row holds ("about twice the 1,362,998 of the 256-GPU run"), or by
  size ("of the smaller run": the row smaller in the first column of size, GPUs, nodes,
  parameters, whose cells of the two differ, 256 GPUs to 512; not a latency), else of
  the named row (``misattached``). Of two rows a sentence names, a figure is the row's
  named nearest it: "PP2-512, on 512 GPUs, is about twice as fast as PP2-256" says 512
  of PP2-512 (not of PP4-512, which holds it too), and "PP2-256, on 512 GPUs, ..." is
  ``misattached``, "the source's table gives it for PP2-512".
- A heading that scopes its section to a platform or model, its last words "for" or "on"
  and a name with a digit or two capitals ("#### FlexAttention Tile Configs for RDNA3"),
  scopes its figures: one whose explainer sentence names the heading's subject
  (FlexAttention, spaces and hyphens aside: "Flex attention") but not the scope, where
  the source writes that subject in another section too (FlexAttention on MPS), is
  ``misattached``, "the source gives it for RDNA3 only" ("Flex attention is roughly
  2-8x faster than before"); a sentence that names no subject ("The result is roughly
  2-8x lower latency") is read as before. The scope is said spaces and hyphens aside
  ("RDNA 3"), in the sentence or an earlier one of its paragraph; it scopes nothing
  where the post's title names it, or where each other place of the subject names it
  too or lies under the heading (no other platform to tell it from).
- The post's title (``title=``) is source too: a feed entry's text does not repeat it.
  Its names are the post's subject, context for every figure: a name the explainer
  ties to a figure that is not in the source clause (nor its label or headings) holds
  when it is in the title ("FP8 reached 7,027 tok/s" in the FP8 post, where the clause
  says "5,996 -> 7,027 tok/s"), unless the source says the figure of a name the
  explainer does not name (near it, else in its clause), or the heading over it or the
  sentence before it names another thing of the kind of the title's name (letters and
  a number, as FP8 and BF16): "FP8 reached 7,156 tok/s" for "7,156 BF16 baseline" in
  the FP8 post stays ``misattached``, "the source gives it for BF16".
- A source clause that points back ("The result is roughly 2-8x lower latency", "It
  is ...", "This gives ...", "These kernels ...", "Its latency ...", not "Its baseline")
  and names nothing the explainer does not but a baseline ("than SDPA") or a plain
  hardware noun is said of the nearest sentence before it in its paragraph that names
  anything (its own sentence's clauses before it first): a name the explainer ties to
  the figure holds when it stands there ("FlexAttention has roughly 2-8x lower latency"
  of "FlexAttention on AMD's RDNA3 GPUs gets tuned tile configs. The result is ...");
  "SDPA is roughly 2-8x faster", "The result is 2-8x lower latency for SDPA", "The
  baseline is ...", or a nearer sentence naming another thing keep it ``misattached``,
  as does that sentence saying the opposite condition ("for the forward pass" for "in
  the backward pass": "the source gives it for the opposite") (:mod:`.antecedent`).
- Number words ("two baselines") are reported only when the source has the value as
  a word or a digit, so ordinary words never raise an alarm. A multiplier word
  ("twice as fast", "doubled"; "six times faster", which is reported always) is matched
  as a figure with unit ``x``: its hedge, binding and rounding as for "6x" ("six times
  faster" is no claim a "6 GPUs" backs); so is a share ("ninety percent", reported
  always). A fraction ("two-thirds") is its quotient, not its count. German number words
  are read so: "zwölf" as "twelve", "zweimal so schnell" as "twice as fast", "dreimal
  schneller" as "three times faster" (reported always), "doppelt so" as 2x.
- Known limits: a source clause binds its names to its figures by nearness, as the
  explainer does (six words, not across a comma): in a long list sentence a name still
  goes with a figure it stands near but does not describe, and a bare count, a figure
  whose names there are all shared with another, or a name only in a paragraph label
  or heading goes with any figure of the clause (save a name in a parenthesis of other
  figures); a figure stated with plain words only ("dropped 19%") is matched by value
  and hedge, not by what it is about, but for the opposite pairs above and a like
  figure beside it in the source's clause whose words hold two more of the words
  before it in the explainer's clause than its own ("End-to-end latency dropped about
  19%" for "time-to-first-token dropped about 19%, and end-to-end latency dropped about
  38%" is ``misattached``), or all of two or more where its own lack one that is not
  the clause subject's and say what it measures with other words ("Requests per second
  rose about 12%" for "about 16% more requests per second and about 12% more output
  tokens per second"; a figure with no word of its own before it has the first
  figure's: "Decode reaches 1,850 tok/s with CUDA graphs and 1,210 tok/s") (not synonyms,
  but for the few words of a request's input and output; "with X" is told from
  "without X" by the first word of X: "with graph capture" for "without CUDA graphs"
  leaves it open); nor, but for a kind of a thing the words say: a figure whose clause
  writes a noun after a word ("A frontier model would cost an estimated $1M") where the
  source's sentence of it writes the noun after another word only ("The fine-tuned
  model could come in ... closer to $1M") and the sentence before or after it writes
  the explainer's pair with a like figure ("a frontier model could easily cost an
  estimated $27M") is ``misattached``; so is a measured figure said of a plain-word
  subject of two words or more ("Uniform groups reach 1.23x over Triton") where the
  source's clause of it, not writing that subject, starts with another ("The
  projection-dimension cases reach 1.23x and 1.73x") and another clause of its
  sentence, or the sentence before or after it, writes the explainer's with a like
  figure ("Uniform groups reach 1.21x and 2.12x"), names or none (:mod:`.qualified`). A title's
  name is held off only by a name the source gives the figure, or one of its kind (told
  by the shape of the name, not its meaning) in the heading or the sentence before.

Modules: :mod:`.unit`, :mod:`.index` and :mod:`.indexing` (the source as units, indexed
once), :mod:`.names` (names and nouns), :mod:`.known_names` (the names of a sentence the
source knows), :mod:`.bind` (what each explainer number is said of),
:mod:`.marks` and :mod:`.clauses` (where a sentence's clauses start), :mod:`.phrases`
(a phrase leading a clause or ending the sentence, naming what its figures are of),
:mod:`.respectively` and :mod:`.paired` (figures listed "respectively" with their names,
in the explainer and in the source), :mod:`.extreme` (a stated maximum or minimum),
:mod:`.scope` (what a figure's clause says beyond names: conditions, counts, asides),
:mod:`.setting` (the conditions a source figure's paragraph states before it, and what
else a figure's clause says, :mod:`.beyond` reading it from the explainer's sentence),
:mod:`.said` (what the source says its figures of: borrowed names, swaps),
:mod:`.antecedent` (a figure's clause pointing back to the sentence before),
:mod:`.length` (short/long of a noun, an opposite pair),
:mod:`.table` (sentences restating a table row), :mod:`.role` (a version in its role),
:mod:`.qualified` (a figure of one kind of a thing), :mod:`.absent` (names the source
never writes) and :mod:`.strays` (those of a sentence's figures),
:mod:`.shape` (shapes),
:mod:`.derive` (values computable from one source unit or a table column),
:mod:`.sides` (a table cell stated as a maximum or minimum), :mod:`.match` (the verdict on
one quantity or range; :mod:`.first_bound`: which source figures hold its binding),
:mod:`.verbatim` (on one identifier, version or number word; :mod:`.word_counts`: what
a count word of the source counts),
:mod:`.coverage` (dropped key facts), :mod:`.report` (the whole explainer;
:mod:`.figure_binding`: a measured figure's binding for its match).
"""

from service.check.coverage import fact_carried, headline_facts
from service.check.index import SourceIndex
from service.check.indexing import index_source
from service.check.report import check_explainer
from service.models import Fact

__all__ = [
    "Fact",
    "SourceIndex",
    "check_explainer",
    "fact_carried",
    "headline_facts",
    "index_source",
]
