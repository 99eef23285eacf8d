import gzip, sys, numpy as np
words = gzip.open('.gpu/vec.words.gz', 'rt', encoding='utf-8').read().split('\n')[:-1]
a = np.frombuffer(gzip.open('.gpu/vec.f16.gz', 'rb').read(), dtype=np.float16).reshape(len(words), -1).astype(np.float32)
with open(sys.argv[1], 'w', encoding='utf-8') as o:
    o.write(f"{a.shape[0]} {a.shape[1]}\n")
    for w, v in zip(words, a):
        o.write(w + ' ' + ' '.join('%.4g' % x for x in v) + '\n')
