//! The MLP similarity network `q(a, b) = σ(MLP([a; b]))` (Kim et al. 2019, §3.3).

use bitext_core::{EmbeddingsView, Rng};
use burn::module::Module;
use burn::tensor::activation::{relu, sigmoid};
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::init::float2;
use crate::layers::{Dense, dropout};

/// The network's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MlpConfig {
    /// Dimension `d` of the sentence embeddings it compares (its input has `2d` values).
    pub dim: usize,
    /// Sizes of the ReLU hidden layers (paper: two of 512).
    pub hidden: Vec<usize>,
    /// Dropout on the hidden layers while training (the paper uses none).
    #[serde(default)]
    pub dropout: f64,
}

impl MlpConfig {
    /// The paper's network for `dim`-dimensional embeddings: two ReLU layers of 512.
    #[must_use]
    pub fn paper(dim: usize) -> Self {
        Self {
            dim,
            hidden: vec![512, 512],
            dropout: 0.0,
        }
    }

    /// Check the parameters.
    ///
    /// # Errors
    /// [`Error::Config`] for a zero size or a dropout outside `[0, 1)`.
    pub fn check(&self) -> Result<()> {
        if self.dim == 0 || self.hidden.contains(&0) {
            return Err(Error::Config(format!(
                "MLP sizes must be positive: dim {}, hidden {:?}",
                self.dim, self.hidden
            )));
        }
        if !(0.0..1.0).contains(&self.dropout) {
            return Err(Error::Config(format!(
                "MLP dropout must be in [0, 1), got {}",
                self.dropout
            )));
        }
        Ok(())
    }
}

/// The MLP similarity.
#[derive(Module, Debug)]
pub struct Mlp {
    /// Hidden layers (ReLU).
    pub hidden: Vec<Dense>,
    /// Output layer (one logit).
    pub output: Dense,
    dim: usize,
    dropout: f64,
}

impl Mlp {
    /// A freshly initialised network drawn from `seed`.
    ///
    /// # Errors
    /// [`Error::Config`] for an invalid configuration.
    pub fn new(config: &MlpConfig, seed: u64, device: &Device) -> Result<Self> {
        config.check()?;
        let mut rng = Rng::seed(seed).fork(0x3119);
        let mut d = 2 * config.dim;
        let mut hidden = Vec::new();
        for &h in &config.hidden {
            hidden.push(Dense::new(d, h, &mut rng, device));
            d = h;
        }
        Ok(Self {
            hidden,
            output: Dense::new(d, 1, &mut rng, device),
            dim: config.dim,
            dropout: config.dropout,
        })
    }

    /// The embedding dimension it compares.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Logits `[n]` for inputs `[a; b]` `[n, 2d]`; dropout when `rng` is given.
    #[must_use]
    pub fn logits(&self, x: Tensor<2>, mut rng: Option<&mut Rng>) -> Tensor<1> {
        let mut h = x;
        for layer in &self.hidden {
            h = dropout(relu(layer.forward(h)), self.dropout, rng.as_deref_mut());
        }
        let [n, _] = h.dims();
        self.output.forward(h).reshape([n])
    }

    /// Probabilities `[n]`.
    #[must_use]
    pub fn probability(&self, x: Tensor<2>) -> Tensor<1> {
        sigmoid(self.logits(x, None))
    }

    /// The input `[a_i; b_j]` `[n, 2d]` of pairs `(i, j)` of rows of `a` and `b`.
    ///
    /// # Errors
    /// [`Error::Input`] when a dimension differs from the network's or an index is out of
    /// range.
    pub fn pair_input(
        &self,
        a: EmbeddingsView<'_>,
        b: EmbeddingsView<'_>,
        pairs: &[(usize, usize)],
        device: &Device,
    ) -> Result<Tensor<2>> {
        let d = self.dim;
        if a.dim() != d || b.dim() != d {
            return Err(Error::Input(format!(
                "the MLP compares {d}-dimensional embeddings, got {} and {}",
                a.dim(),
                b.dim()
            )));
        }
        let mut x = Vec::with_capacity(pairs.len() * 2 * d);
        for (k, &(i, j)) in pairs.iter().enumerate() {
            let (Some(ra), Some(rb)) = (a.get(i), b.get(j)) else {
                return Err(Error::Input(format!(
                    "pair {k} = ({i}, {j}) is outside {} × {} embeddings",
                    a.len(),
                    b.len()
                )));
            };
            x.extend_from_slice(ra);
            x.extend_from_slice(rb);
        }
        Ok(float2(x, [pairs.len(), 2 * d], device))
    }
}
