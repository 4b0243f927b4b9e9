"""check: explainer sentences a writer could put for the FlyDSL, FP8-training, Shopify,
PyTorch 2.14 and vLLM hardware-agnostic posts (eval cases), checked against the real
post: faithful paraphrases raise no alarm (the wrong ones:
``test_check_paraphrase_wrong.py``)."""

from __future__ import annotations

import pytest

from tests.paraphrase_helpers import FLY, FP8, PT, SHOP, VLLM, flagged


@pytest.mark.parametrize(
    ("slug", "sentence"),
    [
        (FLY, "FlyDSL is about 10% faster than the faster of ATen and Triton on BF16 dense GEMM."),
        (FLY, "On BF16 dense GEMM, FlyDSL gives a 1.1x geometric-mean speedup across 15 shapes."),
        (FLY, "MXFP8 GEMM runs 1.58 times faster than ATen, and MXFP4 1.68 times."),
        (FLY, "For MXFP4, vLLM speedups on Llama 3.1 8B range from 1.25x to 1.85x."),
        (FLY, "FlyDSL wins 11 of the 14 uniform-group cases."),
        (FLY, "On aligned dimensions, RMSNorm gains are 1.2 to 1.5 times."),
        (FLY, "In BF16, Llama-3.1-8B peaks at 1.13x and Qwen3-32B at 1.06x."),
        # "peaking at 1.13x" as a hedged gain, as the unhedged "13% faster" is derived
        # (the post's "Figure 13" is no candidate).
        (FLY, "Llama-3.1-8B is up to 13% faster in BF16."),
        (FLY, "Llama-3.1-8B is 13% faster in BF16."),  # BF16: the paragraph's label
        (FLY, "Llama 3.3 70B stays within the 1.79% noise floor in BF16."),
        (FLY, "MXFP scaled GEMM uses one E8M0 scale for every 32 values."),
        (FLY, "You need FlyDSL 0.3 or later, below 0.4."),
        (FLY, "With MXFP8, Qwen3 32B gains 1.40x to 2.03x."),
        (FLY, "The largest MXFP4 GEMM gain, 2.96x, comes at 32 x 14336 x 4096."),
        (FLY, "The 64 × 4096 × 4096 shape improves by 1.33x."),
        (FLY, "End-to-end speedups reach 2.04x for MXFP8 and 3.01x for MXFP4."),
        (FLY, "TopK is 4.02x faster than ATen with deterministic algorithms enabled."),
        (FLY, "With deterministic algorithms enabled, TopK is 4.02 times faster than ATen."),
        (FLY, "TopK is 4.82x faster than ATen with deterministic algorithms disabled."),
        (FLY, "TopK reaches 4.82x over ATen with deterministic algorithms off, and 4.02x on."),
        (FLY, "TopK is 4.02x faster when deterministic algorithms are not disabled."),
        (FLY, "Without deterministic algorithms, TopK is 4.82x faster than ATen."),
        (FLY, "With deterministic algorithms on, TopK is 4.02x faster without code changes."),
        (FLY, "Each request had a 512-token output and a 256-token input."),
        (FLY, "Outputs were fixed at 512 tokens and inputs at 256."),
        (FLY, "The benchmark used 256-token inputs."),
        (FLY, "Requests used a fixed 512-token output."),
        (FLY, "Each request had 256 prompt tokens and a 512-token reply."),
        (FLY, "Each request had a 256-token prompt and 512 response tokens."),
        (FLY, "Each request sent 256 tokens of input and got 512 tokens of output."),
        (FLY, "Each request generated 512 new output tokens from 256 prompt tokens."),
        # "over 24 cases" spans the measured figures before it, as the source's "across
        # all 24 grouped-GEMM cases".
        (FLY, "Grouped GEMM is 1.2x faster than Triton and 1.95x faster than ATen over 24 cases."),
        (FLY, "FlyDSL reaches a 1.20x geometric mean over Triton over 24 grouped-GEMM cases."),
        (FP8, "FP8 training is 13.4% faster than BF16 on Llama 3 8B."),
        (FP8, "On Llama3 8B, FP8 gives 13.4% more throughput than BF16."),
        (FP8, "Peak memory stays nearly the same, about 39 GB."),
        (FP8, "The fused Triton kernels recovered 89% of the FP8 overhead on DeepSeek-V3 671B."),
        (FP8, "Backward passes got 4.2 times faster on DeepSeek-MoE-16B."),
        (FP8, "The end-to-end throughput went up 17%, from 5,996 to 7,027 tokens per second."),
        (FP8, "The BF16 baseline is 7,156 tokens per second."),
        (FP8, "The forward pass went from about 19 ms to about 7 ms."),
        (FP8, "The FNUZ format on AMD has a maximum value of 240."),
        (FP8, "On AMD, e4m3fnuz has a maximum of 240."),  # the source's "max of 240"
        (FP8, "The e4m3fnuz format has a max of 240."),
        # The source's stated maximum is an upper bound, as "up to" is.
        (FP8, "On AMD, e4m3fnuz values go up to 240."),
        (FP8, "e4m3fnuz values are at most 240."),
        (FP8, "On AMD, e4m3fnuz tops out at 240."),
        (FP8, "| Property | e4m3fnuz (AMD) |\n| --- | --- |\n| Max value | 240 |"),
        (FP8, "| Format | Max value |\n| --- | --- |\n| e4m3fnuz | 240 |"),
        (FP8, "The upstream FP8 configuration added 127 ms per step, 92% of it in quantization."),
        (FP8, "With DeepSeek V3 671B, the fused forward kernel raised throughput by 17%."),
        (FP8, "The colwise scales kernel is 6.2 times faster per MoE layer on MI300X."),
        (FP8, "On DeepSeek-V3 671B, the colwise scales optimization delivered 6.2x per MoE layer."),
        (FP8, "The colwise kernel went from 7,290 µs to 1,170 µs per MoE layer on an MI300X."),
        (FP8, "The forward-pass fusion recovered 89% of the quantization overhead on MI325X."),
        (FP8, "FP8 reached 7,027 tok/s on MI325X GPUs, against 7,156 for the BF16 baseline."),
        (FP8, "The backward pass got 4.2x faster on DeepSeek-MoE-16B."),
        # The 6.2x of the colwise scales kernel "used in the backward pass" (two sentences
        # before it in its paragraph; the summary's "up to a 6.2x speedup" says neither).
        (FP8, "In the backward pass, the colwise scales kernel is 6.2x faster."),
        (FP8, "The forward-pass fusion raised end-to-end throughput by 17%."),
        # The post's subject, FP8, is in its title, not in the clause of the figure.
        (FP8, "FP8 reached 7,027 tokens per second on DeepSeek-V3 671B."),
        (FP8, "After the fusion, FP8 training ran at 7,027 tok/s."),
        # A leading phrase names what the figures of its clause are measured on.
        (FP8, "On an MI300X GPU, the colwise scales kernel is 6.2x faster per MoE layer."),
        (FP8, "On Llama3-8B, FP8 training gives a 13.4% throughput gain over BF16."),
        (FLY, "On MI355X, the NT suite shows a 1.58x geometric-mean speedup for MXFP8."),
        (FP8, "FP8 gives a 13.4% gain on Llama3-8B; on MI325X, forward fusion added 17%."),
        # The Figure 1 caption's first sentence names Llama3-8B for the whole caption;
        # its "~39 GB" sentence does not, and a leading phrase reaches the 39 GB.
        (
            FP8,
            "For Llama3-8B, FP8 is 13.4% faster than BF16, and peak memory stays at about 39 GB.",
        ),
        (FP8, "On 8xMI325X GPUs with DeepSeek-V3 671B, the forward pass went from 19 ms to 7 ms."),
        # Names past a figure's six words, in its clause, stand where the source gives it.
        (
            FLY,
            "FlyDSL gives 1.10x over the faster of ATen and Triton on BF16 dense GEMM.",
        ),
        (
            FLY,
            "FlyDSL reaches a 1.58x mean speedup over ATen across the 17 shapes for MXFP8.",
        ),
        (
            FLY,
            "FlyDSL reaches 1.68x over ATen in the 17-shape NT suite for MXFP4.",
        ),
        (FLY, "FlyDSL is 1.20x faster than Triton across 24 grouped GEMM cases."),
        (FLY, "FlyDSL is 1.17x to 3.66x faster than ATen on RMSNorm."),
        # A name qualified as the post qualifies it in several ways (dense, grouped,
        # scaled GEMM), said where the source's figure is: its item, heading or label.
        (FLY, "Dense GEMM gives a 1.10x speedup over the faster of ATen and Triton."),
        (FLY, "Dense GEMM gives a 1.12x aggregate speedup over the original baseline."),
        (FLY, "Grouped GEMM reaches 1.20x over Triton."),
        # "respectively": each figure is said of its own name only, near or far.
        (
            FLY,
            "RMSNorm and TopK, run in eager mode, reach 1.17x to 3.66x and 4.82x, respectively.",
        ),
        (FLY, "RMSNorm and TopK were measured across 22 and 10 cases, respectively."),
        (FLY, "MXFP8 and MXFP4 reach end-to-end speedups of 2.04x and 3.01x, respectively."),
        (FLY, "Over Triton and ATen, FlyDSL reaches 1.20x and 1.95x, respectively."),
        # The source's own "respectively" pairs its figures with the sentence before's:
        # "1.20x ... over Triton and 1.95x over ATen. Uniform groups reach 1.21x and
        # 2.12x, respectively".
        (FLY, "Uniform groups reach 1.21x and 2.12x over Triton and ATen, respectively."),
        (FLY, "Uniform groups reach 1.21x over Triton and 2.12x over ATen."),
        (FLY, "Uniform groups reach 2.12x over ATen."),
        # ... and goes on in the sentence right after, of as many bare figures: "The
        # projection-dimension cases reach 1.23x and 1.73x; the ragged cases reach 1.15x
        # and 1.73x".
        (FLY, "The projection-dimension cases reach 1.23x over Triton."),
        (FLY, "The projection-dimension cases reach 1.73x over ATen."),
        (FLY, "The ragged cases reach 1.15x over Triton and 1.73x over ATen."),
        (FLY, "Uniform groups reach 1.21x over Triton."),
        (FLY, "The projection dimension cases reach 1.23x over Triton."),
        (FLY, "Ragged cases reach 1.15x over Triton."),
        (FLY, "Scaled GEMM reaches 1.58x over ATen for MXFP8."),
        # A title-cased count phrase (a heading's, a table cell's) reads as a lower-case one.
        (FLY, "Each request had 512 Output Tokens."),
        (FLY, "Each request had 256 Prompt Tokens."),
        (FLY, "Each request had 256 Input Tokens and 512 Output Tokens."),
        # So does a table row's title-cased label before its count: "512 output tokens".
        (FLY, "| Output Tokens | 512 |"),
        (FLY, "Output Tokens | 512"),
        (
            FLY,
            "| Setting | Value |\n| --- | --- |\n| Input Tokens | 256 |\n| Output Tokens | 512 |",
        ),
        # The figure of a leading phrase stands in the source sentence of the figures.
        (SHOP, "At 350 requests per minute, time to first token fell about 19%."),
        (SHOP, "At 350 requests per minute, end-to-end latency dropped about 38%."),
        (SHOP, "A frontier model could cost an estimated $27M per year, the fine-tuned one $1M."),
        (SHOP, "Gisting raised requests per second by about 16% and output tokens by about 12%."),
        (SHOP, "That works out to roughly 14% fewer GPUs for the same traffic."),
        (SHOP, "Two annotators blindly annotate 25 random samples."),
        (SHOP, "The GraphQL agent serves up to 2,000 requests per minute."),
        (SHOP, "Gisting shrank the system prompt from roughly 6,000 tokens to about 1,500."),
        (SHOP, "Gisting shrank the prompt from 6,000 tokens to 1,500 tokens."),
        (SHOP, "Gisting shrank the prompt from roughly 6,000 tokens to about 1,500 tokens."),
        (SHOP, "Gisting shrank the prompt from roughly 6,000 to about 1,500 tokens."),
        (SHOP, "The loop cuts serving costs by 96%."),
        (SHOP, "A kappa around 0.2 means the rubric is ambiguous."),
        (SHOP, "In the load test, time to first token dropped about 19%."),
        (SHOP, "Requests per second rose about 16%."),
        (SHOP, "Output tokens per second rose about 12%."),
        (
            SHOP,
            "Time to first token and end-to-end latency dropped about 19% and 38%, respectively.",
        ),
        (
            SHOP,
            "Requests and output tokens per second rose about 16% and 12%, respectively.",
        ),
        (
            SHOP,
            "Gisting raised requests and output tokens by about 16% and 12%, respectively.",
        ),
        # A kind of a thing after the list of figures, no clause mark between, is said
        # of them all: "about 16% more requests per second and about 12% more output
        # tokens per second on identical GPUs".
        (SHOP, "The same compression gives about 16% more requests per second on identical GPUs."),
        (SHOP, "Serving on a frontier model could cost an estimated $27M per year."),
        (SHOP, "The fine-tuned model could cost closer to $1M, a 96% reduction."),
        (SHOP, "A frontier model costs about $27M per year; the fine-tuned one about $1M."),
        (PT, "On MPS, the F.linear decode shape cost an 8.5x slowdown on bf16 and fp16."),
        (PT, "On H100, individual shapes range from 0.66x to 1.57x."),
        (PT, "Cholesky is roughly 1.2–2.8x faster depending on size."),
        (PT, "The release has 2,995 commits from 487 contributors since PyTorch 2.13."),
        (PT, "The submitter measured over 100x on small batched matrices and 2–9x on larger ones."),
        (PT, "Symmetric memory kernels arrived on the NVLink domain in NCCL 2.27."),
        (PT, "PyTorch 2.14 adds Python 3.15 support, which is eager-only."),
        (PT, "Wheels over 4 GB had invalid ZIP64 and are repackaged."),
        (PT, "lu_factor measured over 100x on small batched matrices."),
        (PT, "lu_factor measured 2–9x on larger single matrices."),
        (PT, "The release counts 487 contributors and 2,995 commits."),
        (PT, "PyTorch 2.14 has 2,995 commits since PyTorch 2.13."),
        (PT, "Python 3.15 support in 2.14 is eager-only."),
        (PT, "Python 3.15 support in PyTorch 2.14 is eager-only."),
        (PT, "In PyTorch 2.14, Python 3.15 support is eager-only."),
        (PT, "PyTorch 2.14 ships CUDA 13.0 wheels by default."),
        (
            VLLM,
            "The pathway was validated with the Spyre plugin for Gemma 4, Qwen3 and Granite 4.2.",
        ),
        (VLLM, "It is enabled by setting USE_HW_AGNOSTIC=1."),
        (VLLM, "The models still adhere to the 4 design principles."),
        (VLLM, "The experiments ran on NVIDIA H100 GPUs."),
        (VLLM, "Figure 3 compares USE_HW_AGNOSTIC=0 with USE_HW_AGNOSTIC=1."),
        (VLLM, "The new layers are enabled by setting USE_HW_AGNOSTIC=1 with transformers."),
        (VLLM, "With USE_HW_AGNOSTIC=0, vLLM uses the existing layers."),
        (VLLM, "In case (3), the transformers model is re-wired to use the vLLM layers."),
        (VLLM, "In all 3 cases, these common layers are implemented in a single place."),
        (VLLM, "DeepSeek V4 and Kimi K3 reach million-token context by different approaches."),
        # A name the source writes as one word ("FlexAttention"), written as two.
        (PT, "On RDNA3, Flex attention is roughly 2–8x faster than before."),
        (PT, "Flex attention on RDNA3 has roughly 2-8x lower latency."),
        (PT, "Flex attention is roughly 2–8x faster than before on RDNA3 cards."),
        (PT, "For RDNA3, FlexAttention gets roughly 2-8x lower latency."),
        (PT, "Flex attention is roughly 2-8x faster on RDNA 3 than before."),
        (PT, "FlexAttention gets tuned tile configs for RDNA3. It is roughly 2-8x faster now."),
        (PT, "FlexAttention gets tuned tile configs for RDNA3. FlexAttention is 2-8x faster."),
        (PT, "The result is roughly 2-8x lower latency in the low-hundreds-of-tokens range."),
        # A plain hardware noun the paragraph states once ("FlexAttention on AMD's RDNA3
        # GPUs ..."), not in the figure's own sentence ("The result is roughly 2-8x").
        (PT, "Flex attention on RDNA 3 GPUs gets roughly 2-8x lower latency."),
        (PT, "On RDNA3 GPUs, FlexAttention gets roughly 2-8x lower latency."),
        # A phrase ending the sentence after a comma names what its figures are of.
        (FP8, "FP8 training delivers a 13.4% throughput gain over BF16, on Llama3-8B."),
        (FP8, "Peak memory stays nearly identical, at about 39 GB, on Llama3-8B."),
        (FP8, "The colwise kernel reached 6.2x per MoE layer, on DeepSeek-V3 671B shapes."),
        (FP8, "Throughput went from 5,996 to 7,027 tok/s, on DeepSeek-V3 671B."),
        (FP8, "The forward fusion gave a 17% end-to-end gain, measured on 8x MI325X GPUs."),
        (FP8, "Rowwise FP8 training delivers a 13.4% throughput gain, against BF16 on Llama3-8B."),
        (FP8, "Peak memory stays nearly identical, at about 39 GB, as on Llama3-8B."),
        (FLY, "Grouped GEMM is 1.95x faster than ATen, across 24 cases."),
        (FLY, "FlyDSL gives a 1.10x geometric-mean speedup on BF16 dense matrix multiplication."),
        (FLY, "For grouped GEMM, FlyDSL reaches 1.20x over Triton and 1.95x over ATen."),
        (FP8, "With rowwise scaling, FP8 training gives a 13.4% gain over BF16 on Llama3-8B."),
        (FP8, "The column-wise scales kernel gives a 6.2x speedup per MoE layer."),
        # A vendor before the platform, a hardware noun after it (the paragraph's).
        (PT, "Flex attention is roughly 2-8x faster on AMD's RDNA3 GPUs."),
        (PT, "On AMD's RDNA3 GPUs, Flex attention gets roughly 2-8x lower latency."),
        # A hardware name is an identifier, matched verbatim, hyphen or space between parts.
        (VLLM, "Rack-scale systems like the NVIDIA GB300 NVL72 need careful kernel engineering."),
        (VLLM, "Rack-scale systems like GB300-NVL72 need careful kernel engineering."),
        (PT, "Split-reduction heuristics are tuned for GB200."),
        (PT, "There is a new B200 benchmark workflow in CI."),
        # A bare decimal before "or earlier" is a version, as the source's "Python 3.14 or
        # earlier" is (its product named before in the sentence).
        (PT, "Under Python 3.15 torch.compile fails, so stay on 3.14 or earlier."),
        # Verbs of lasting are no nouns a bare figure is said of (the source: "compatible
        # with future versions of torch: 2.15, 2.16").
        (PT, "It is ABI stable with respect to torch 2.14 and should keep working with 2.15."),
        (PT, "The result is roughly 2 to 8 times lower latency on RDNA3."),
        # An explainer in German (a feed set to "de"): a decimal comma before "mal"/"fach".
        (FLY, "Mit MXFP8 läuft GEMM 1,58-mal schneller als ATen."),
        (FLY, "TopK ist 4,82-mal schneller als ATen."),
        (FLY, "Bei RMSNorm ist FlyDSL 1,17- bis 3,66-mal schneller als ATen."),
        (FP8, "Der Rückwärtsdurchlauf wurde auf DeepSeek-MoE-16B 4,2-fach schneller."),
    ],
)
def test_a_faithful_paraphrase_raises_no_alarm(slug: str, sentence: str) -> None:
    assert flagged(slug, sentence) == []
