// bitext: a C entry point to SentencePiece's trainer (see README.md and src/spm/ffi.rs).
//
// Sentences come from Rust as (pointer, length) pairs through a SentenceIterator, options as
// key/value strings (the kwargs overload of Train: no command-line string is parsed), and the
// trained model comes back serialized in memory (no file is written: with an output string,
// SentencePiece requires `model_prefix` to be empty). No C++ exception crosses into Rust.

#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <unordered_map>

#include "sentencepiece_trainer.h"

namespace {

class SliceIterator : public sentencepiece::SentenceIterator {
 public:
  SliceIterator(const char* const* data, const size_t* lens, size_t n)
      : data_(data), lens_(lens), n_(n) {
    Load();
  }
  bool done() const override { return i_ >= n_; }
  void Next() override {
    ++i_;
    Load();
  }
  const std::string& value() const override { return value_; }
  sentencepiece::util::Status status() const override {
    return sentencepiece::util::Status();
  }

 private:
  void Load() {
    if (i_ < n_) value_.assign(data_[i_], lens_[i_]);
  }
  const char* const* data_;
  const size_t* lens_;
  size_t n_;
  size_t i_ = 0;
  std::string value_;
};

void SetError(const std::string& message, char* err, size_t errlen) {
  if (err == nullptr || errlen == 0) return;
  size_t n = message.size() < errlen - 1 ? message.size() : errlen - 1;
  std::memcpy(err, message.data(), n);
  err[n] = '\0';
}

}  // namespace

extern "C" {

// Train a model. `keys`/`values`: `nkw` NUL-terminated option strings. `sentences`/`lens`:
// `n` training sentences. On success returns 0 and sets `*model` (malloc'd; release with
// bitext_spm_free) and `*model_len`. On failure returns 1 (SentencePiece's status) or 2 (a C++
// exception) and writes a NUL-terminated message into `err`.
int bitext_spm_train(const char* const* keys, const char* const* values, size_t nkw,
                     const char* const* sentences, const size_t* lens, size_t n,
                     unsigned int seed, char** model, size_t* model_len, char* err,
                     size_t errlen) {
  *model = nullptr;
  *model_len = 0;
  try {
    std::unordered_map<std::string, std::string> kwargs;
    for (size_t i = 0; i < nkw; ++i) kwargs[keys[i]] = values[i];
    sentencepiece::SetRandomGeneratorSeed(seed);
    SliceIterator it(sentences, lens, n);
    std::string serialized;
    const auto status = sentencepiece::SentencePieceTrainer::Train(kwargs, &it, &serialized);
    if (!status.ok()) {
      SetError(status.ToString(), err, errlen);
      return 1;
    }
    char* out = static_cast<char*>(std::malloc(serialized.empty() ? 1 : serialized.size()));
    if (out == nullptr) {
      SetError("out of memory for the serialized model", err, errlen);
      return 2;
    }
    std::memcpy(out, serialized.data(), serialized.size());
    *model = out;
    *model_len = serialized.size();
    return 0;
  } catch (const std::exception& e) {
    SetError(std::string("C++ exception: ") + e.what(), err, errlen);
    return 2;
  } catch (...) {
    SetError("unknown C++ exception", err, errlen);
    return 2;
  }
}

// Release a model returned by bitext_spm_train.
void bitext_spm_free(char* model) { std::free(model); }

}  // extern "C"
