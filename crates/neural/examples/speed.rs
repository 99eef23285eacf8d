//! Speed of the siamese BiGRU, the shared-decoder autoencoder and the word-alignment BiLSTM on
//! burn, measured like `../shared/bench/torch_encoders.py` measures PyTorch, so the two can be
//! put side by side: the same models and sizes (vocabularies of 20,000; siamese: embeddings
//! 512, GRU 512 per direction, 256 hidden units, no dropout, training steps of 128 pairs;
//! autoencoder: embeddings 512, encoders 256 per direction, decoder 512, full softmax over the
//! 20,000 target words as the reference computes it (`ae/train`) and bitext's sampled softmax
//! of 4096 candidates (`ae/train-sampled`), training steps of 60 translation + 60 autoencoding
//! examples; aligner: `AlignerConfig::paper`, embeddings 256, LSTM 256 per direction, `r = 1`,
//! word objective, training steps of 32 pairs with random ±1 labels per word (`align/train`;
//! `align/train-one-graph` without [`Aligner::with_split_sides`]), and `Aligner::pairs` on the same batches (`align/infer`, no PyTorch counterpart)), random
//! token ids with lengths uniform in 5..=40, Adam 2e-4 and global-norm clipping at 5, training
//! cycling over 4 batches, encoding batches of 256 sentences (a pool of 8, length-sorted or
//! random-length), at 1 and 2 threads with the repetitions of the thread counts interleaved,
//! medians reported.
//!
//! ```text
//! cargo run --release -p bitext-neural --example speed -- [--quick] [--threads 1,2]
//!     [--reps 3] [--min-steps 20] [--min-time 10] [--backend flex|ndarray|wgpu|cuda] [--preset paper]
//!     [--default-malloc] [--pieces N]
//! ```
//!
//! `--pieces N` encodes each siamese training batch in `N` pieces on their own threads
//! ([`Siamese::with_chunks`]; `0` = one per thread, at most 8, as `bitext train siamese`
//! does by default; on a GPU the batch stays whole); the default, 1, is the batch whole.
//!
//! Like bitext's command line, it first calls
//! [`tune_allocator`]; `--default-malloc` measures
//! with glibc's defaults instead.

use std::time::Instant;

use bitext_core::Rng;
use bitext_encode::Side;
use bitext_neural::aligner::{Aligner, AlignerConfig, LabeledRef};
use bitext_neural::autoencoder::{Autoencoder, AutoencoderConfig, Softmax};
use bitext_neural::backend::{BackendSpec, Threads, tune_allocator};
use bitext_neural::siamese::{Siamese, SiameseConfig};
use bitext_neural::train::{OptimizerSpec, TrainLoss, Updater};
use burn::module::Module;
use burn::tensor::Tensor;

struct Args {
    threads: Vec<usize>,
    reps: usize,
    warmup: usize,
    min_steps: usize,
    min_time: f64,
    backend: BackendSpec,
    preset: String,
    train_batch: usize,
    infer_batch: usize,
    only: Option<String>,
    vocab: usize,
    default_malloc: bool,
    pieces: usize,
}

fn parse() -> anyhow::Result<Args> {
    let mut a = Args {
        threads: vec![1, 2],
        reps: 3,
        warmup: 3,
        min_steps: 20,
        min_time: 10.0,
        backend: BackendSpec::Flex,
        preset: "paper".into(),
        train_batch: 128,
        infer_batch: 256,
        only: None,
        vocab: 20_000,
        default_malloc: false,
        pieces: 1,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let val = || {
            args.get(i + 1)
                .cloned()
                .ok_or_else(|| anyhow::anyhow!("{} needs a value", args[i]))
        };
        match args[i].as_str() {
            "--default-malloc" => {
                a.default_malloc = true;
                i += 1;
                continue;
            }
            "--quick" => {
                (a.reps, a.warmup, a.min_steps, a.min_time) = (1, 1, 2, 1.0);
                i += 1;
                continue;
            }
            "--threads" => {
                a.threads = val()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?;
            }
            "--reps" => a.reps = val()?.parse()?,
            "--warmup" => a.warmup = val()?.parse()?,
            "--min-steps" => a.min_steps = val()?.parse()?,
            "--min-time" => a.min_time = val()?.parse()?,
            "--backend" => a.backend = BackendSpec::parse(&val()?)?,
            "--preset" => a.preset = val()?,
            "--train-batch" => a.train_batch = val()?.parse()?,
            "--infer-batch" => a.infer_batch = val()?.parse()?,
            "--only" => a.only = Some(val()?),
            "--vocab" => a.vocab = val()?.parse()?,
            "--pieces" => a.pieces = val()?.parse()?,
            other => anyhow::bail!("unknown argument {other}"),
        }
        i += 2;
    }
    Ok(a)
}

/// Source sentences, target sentences and labels of one training batch.
type TrainBatch = (Vec<Vec<u32>>, Vec<Vec<u32>>, Vec<f32>);

/// Source and target sentences of one alignment batch and their ±1 word labels.
type AlignBatch = (Vec<Vec<u32>>, Vec<Vec<u32>>, Vec<Vec<f32>>, Vec<Vec<f32>>);

fn sentences(rng: &mut Rng, n: usize, sorted: bool, vocab: usize) -> Vec<Vec<u32>> {
    let mut lens: Vec<usize> = (0..n).map(|_| 5 + rng.below(36)).collect();
    if sorted {
        lens.sort_unstable_by(|a, b| b.cmp(a));
    }
    lens.iter()
        .map(|&l| (0..l).map(|_| 1 + rng.below(vocab - 1) as u32).collect())
        .collect()
}

fn refs(v: &[Vec<u32>]) -> Vec<&[u32]> {
    v.iter().map(Vec::as_slice).collect()
}

fn labeled(b: &AlignBatch) -> Vec<LabeledRef<'_>> {
    let (s, t, ys, yt) = b;
    (0..s.len())
        .map(|k| LabeledRef {
            src: &s[k],
            tgt: &t[k],
            src_labels: &ys[k],
            tgt_labels: &yt[k],
            label: 1.0,
        })
        .collect()
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "n/a".into())
}

/// One benchmark: a step function and the items it does per step.
struct Bench<'a> {
    name: &'static str,
    unit: &'static str,
    per_step: usize,
    pass_len: usize,
    step: Box<dyn FnMut() -> anyhow::Result<()> + Send + 'a>,
}

/// A training benchmark, `(name, unit, per_step)`: each step takes the next of `batches`
/// (cycling), computes the model's loss with `loss` and takes an Adam step (2e-4, gradients
/// clipped at a global norm of 5).
fn train_bench<'a, M: Module + Send + 'a, B: Sync>(
    (name, unit, per_step): (&'static str, &'static str, usize),
    model: M,
    batches: &'a [B],
    mut loss: impl FnMut(&M, &B) -> bitext_neural::Result<TrainLoss> + Send + 'a,
) -> anyhow::Result<Bench<'a>> {
    let mut model = Some(model);
    let mut updater = Updater::new(&OptimizerSpec::adam(2e-4), Some(5.0))?;
    let mut k = 0;
    Ok(Bench {
        name,
        unit,
        per_step,
        pass_len: 1,
        step: Box::new(move || {
            let b = &batches[k % batches.len()];
            k += 1;
            let m = model.take().expect("model");
            let loss = loss(&m, b)?;
            let (m, _) = updater.step(m, loss, 2e-4)?;
            model = Some(m);
            Ok(())
        }),
    })
}

/// An encoding benchmark of each pool of batches (`names` in the pools' order): each step
/// encodes the pool's next batch (cycling) with `encode` and reads the vectors back.
fn infer_benches<'a, const N: usize>(
    pools: &'a [Vec<Vec<Vec<u32>>>],
    names: [&'static str; N],
    per_step: usize,
    encode: impl Fn(&[&[u32]]) -> bitext_neural::Result<Tensor<2>> + Copy + Send + 'a,
) -> impl Iterator<Item = Bench<'a>> {
    pools.iter().zip(names).map(move |(p, name)| {
        let mut i = 0;
        Bench {
            name,
            unit: "sents",
            per_step,
            pass_len: p.len(),
            step: Box::new(move || {
                let v = encode(&refs(&p[i % p.len()]))?;
                i += 1;
                let _ = v.into_data();
                Ok(())
            }),
        }
    })
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let args = parse()?;
    let tuned = !args.default_malloc && tune_allocator();
    let mut config = SiameseConfig::paper(args.vocab, args.vocab);
    if args.preset != "paper" {
        config = SiameseConfig {
            shared_embeddings: false,
            ..SiameseConfig::preset(&args.preset, args.vocab)?
        }
        .with_encoder(|e| {
            e.src_vocab = args.vocab;
            e.tgt_vocab = args.vocab;
        });
    }
    config.dropout_input = 0.0;
    config.dropout_output = 0.0;
    let mut rng = Rng::seed(1234);
    let train_dev = args.backend.autodiff_device()?;
    let infer_dev = args.backend.device()?;
    let train_batches: Vec<TrainBatch> = (0..4)
        .map(|_| {
            let s = sentences(&mut rng, args.train_batch, false, args.vocab);
            let t = sentences(&mut rng, args.train_batch, false, args.vocab);
            let y = (0..args.train_batch)
                .map(|_| f32::from(u8::from(rng.bernoulli(0.5))))
                .collect();
            (s, t, y)
        })
        .collect();
    let pools: Vec<Vec<Vec<Vec<u32>>>> = [true, false]
        .iter()
        .map(|&sorted| {
            let all = sentences(&mut rng, 8 * args.infer_batch, sorted, args.vocab);
            all.chunks(args.infer_batch).map(<[_]>::to_vec).collect()
        })
        .collect();

    // The autoencoder at the reference's sizes: 60 translation + 60 autoencoding examples.
    let ae_half = 60;
    let ae_batches: Vec<[Vec<Vec<u32>>; 3]> = (0..4)
        .map(|_| [(); 3].map(|()| sentences(&mut rng, ae_half, false, args.vocab)))
        .collect();
    let ae_config = |softmax| AutoencoderConfig {
        softmax,
        ..AutoencoderConfig::paper(args.vocab, args.vocab)
    };
    // The word-alignment BiLSTM at the reference's sizes: 32 pairs, ±1 labels per word.
    let align_batch = 32;
    let align_config = AlignerConfig::paper(args.vocab, args.vocab);
    let align_batches: Vec<AlignBatch> = (0..4)
        .map(|_| {
            let s = sentences(&mut rng, align_batch, false, args.vocab);
            let t = sentences(&mut rng, align_batch, false, args.vocab);
            let mut labels = |v: &[Vec<u32>]| -> Vec<Vec<f32>> {
                v.iter()
                    .map(|x| {
                        x.iter()
                            .map(|_| if rng.bernoulli(0.5) { 1.0 } else { -1.0 })
                            .collect()
                    })
                    .collect()
            };
            let (ys, yt) = (labels(&s), labels(&t));
            (s, t, ys, yt)
        })
        .collect();
    let ae_infer = Autoencoder::new(&ae_config(Softmax::Full), 1, &infer_dev)?;
    let align_infer = Aligner::new(&align_config, 1, &infer_dev)?;
    let infer = Siamese::new(&config, 1, &infer_dev)?;
    let siamese = Siamese::new(&config, 1, &train_dev)?.with_chunks(args.pieces);
    let mut benches = vec![train_bench(
        ("siamese/train", "pairs", args.train_batch),
        siamese,
        &train_batches,
        |m, (s, t, y)| m.pair_loss(&refs(s), &refs(t), y, None),
    )?];
    let names = ["siamese/infer-sorted", "siamese/infer-random"];
    benches.extend(infer_benches(&pools, names, args.infer_batch, |b| {
        infer.encode(b, Side::Source, None)
    }));
    for (name, softmax) in [
        ("ae/train", Softmax::Full),
        ("ae/train-sampled", Softmax::Sampled { candidates: 4096 }),
    ] {
        let model = Autoencoder::new(&ae_config(softmax), 1, &train_dev)?;
        let mut draw = Rng::seed(9);
        benches.push(train_bench(
            (name, "examples", 2 * ae_half),
            model,
            &ae_batches,
            move |m, [s, t, a]| Ok(m.loss(&refs(s), &refs(t), &refs(a), Some(&mut draw))?.loss),
        )?);
    }
    let names = ["ae/infer-sorted", "ae/infer-random"];
    benches.extend(infer_benches(&pools, names, args.infer_batch, |b| {
        ae_infer.encode(b, Side::Source)
    }));

    // `align/train` back-propagates the two encoders in their own graphs on two threads (the
    // default); `align/train-one-graph` in one graph, as before that was added.
    for (name, split) in [("align/train", true), ("align/train-one-graph", false)] {
        let model = Aligner::new(&align_config, 1, &train_dev)?.with_split_sides(split);
        benches.push(train_bench(
            (name, "pairs", align_batch),
            model,
            &align_batches,
            |m, b| Ok(m.loss(&labeled(b), None)?.loss),
        )?);
    }
    {
        let infer = &align_infer;
        let batches = &align_batches;
        let mut k = 0;
        benches.push(Bench {
            name: "align/infer",
            unit: "pairs",
            per_step: align_batch,
            pass_len: batches.len(),
            step: Box::new(move || {
                let (s, t, _, _) = &batches[k % batches.len()];
                k += 1;
                let out = infer.pairs(&refs(s), &refs(t))?;
                std::hint::black_box(out);
                Ok(())
            }),
        });
    }

    let ae = ae_config(Softmax::Full);
    println!(
        "backend {} preset {}: siamese (emb {}, hidden 2x{}, ff {}), autoencoder (emb {}, \
         encoders 2x{}, decoder {}, vocabularies {}), aligner (emb {}, LSTM 2x{}, r {}, batch {}), \
         siamese training pieces {}, malloc {}, load before {}",
        args.backend,
        args.preset,
        config.emb_dim,
        config.hidden,
        config.ff,
        ae.emb_dim,
        ae.hidden,
        ae.dim(),
        ae.tgt_vocab,
        align_config.emb_dim,
        align_config.hidden,
        align_config.r,
        align_batch,
        args.pieces,
        if tuned { "tuned" } else { "glibc defaults" },
        loadavg()
    );
    println!("| measurement | T | steps/s | items/s (median) | min-max | load start -> end |");
    println!("|---|---|---|---|---|---|");
    for b in &mut benches {
        if args
            .only
            .as_ref()
            .is_some_and(|o| !b.name.contains(o.as_str()))
        {
            continue;
        }
        let mut rates: Vec<Vec<f64>> = vec![Vec::new(); args.threads.len()];
        let mut loads = vec![(String::new(), String::new()); args.threads.len()];
        let mut warmed = vec![false; args.threads.len()];
        for _rep in 0..args.reps {
            for (ti, &t) in args.threads.iter().enumerate() {
                Threads(t).install(|| {
                    if loads[ti].0.is_empty() {
                        loads[ti].0 = loadavg();
                    }
                    let extra = if warmed[ti] { 1 } else { args.warmup };
                    warmed[ti] = true;
                    for w in 0..extra {
                        let t0 = Instant::now();
                        (b.step)().map_err(|e| bitext_neural::Error::Input(e.to_string()))?;
                        // On a GPU the first steps compile and tune kernels: shown, not counted.
                        eprintln!(
                            "  {:22} T={t}: warm-up step {} in {:.3} s",
                            b.name,
                            w + 1,
                            t0.elapsed().as_secs_f64()
                        );
                    }
                    let t0 = Instant::now();
                    let mut n = 0;
                    loop {
                        for _ in 0..b.pass_len {
                            (b.step)().map_err(|e| bitext_neural::Error::Input(e.to_string()))?;
                        }
                        n += b.pass_len;
                        let el = t0.elapsed().as_secs_f64();
                        if (n >= args.min_steps || el >= args.min_time)
                            && n >= 3.min(args.min_steps)
                        {
                            rates[ti].push(n as f64 / el);
                            eprintln!(
                                "  {:22} T={t}: {n} steps in {el:.2} s -> {:.1} {}/s (load {})",
                                b.name,
                                n as f64 * b.per_step as f64 / el,
                                b.unit,
                                loadavg()
                            );
                            break;
                        }
                    }
                    loads[ti].1 = loadavg();
                    Ok(())
                })?;
            }
        }
        for (ti, &t) in args.threads.iter().enumerate() {
            let r = &mut rates[ti];
            let lo = r.iter().copied().fold(f64::INFINITY, f64::min) * b.per_step as f64;
            let hi = r.iter().copied().fold(0.0, f64::max) * b.per_step as f64;
            let med = median(r);
            println!(
                "| {} | {t} | {med:.3} | **{:.1} {}/s** | {lo:.1}-{hi:.1} | {} -> {} |",
                b.name,
                med * b.per_step as f64,
                b.unit,
                loads[ti].0,
                loads[ti].1
            );
        }
    }
    Ok(())
}
