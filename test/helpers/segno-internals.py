# segno's tables, field, Reed–Solomon and finished symbols (python3-segno), for test/unit/qr-internals.test.ts.
# stdin: JSON {"remainders": [[data bytes, ecc count], ...], "symbols": [[text, version, level, mask], ...]}.
import json
import sys

import segno
from segno import consts, encoder

LEVELS = {'L': consts.ERROR_LEVEL_L, 'M': consts.ERROR_LEVEL_M, 'Q': consts.ERROR_LEVEL_Q, 'H': consts.ERROR_LEVEL_H}


def table(version, level):
    infos = consts.ECC[version][LEVELS[level]]
    return {
        'total': sum(info.num_blocks * info.num_total for info in infos),
        'blocks': sum(info.num_blocks for info in infos),
        'eccPerBlock': infos[0].num_total - infos[0].num_data,
    }


def remainder(data, count):
    """segno's make_blocks for one block: the generator it uses, and the error correction it computes."""
    info = encoder.consts.EC(1, len(data) + count, len(data))
    _, error_blocks = encoder.make_blocks([info], encoder.Buffer(int(bit) for b in data for bit in format(b, '08b')))
    generator = [consts.GALIOS_EXP[g] for g in consts.GEN_POLY[count]]
    return {'generator': generator, 'ecc': list(error_blocks[0])}


def symbol(text, version, level, mask):
    """segno's symbol for text in byte mode, and the final codewords it placed (caught on their way in)."""
    placed = []
    add_codewords = encoder.add_codewords

    def catch(matrix, codewords, ver):
        placed.append(bytes(codewords.toints()))
        return add_codewords(matrix, codewords, ver)

    encoder.add_codewords = catch
    try:
        qr = segno.make(text, version=version, error=level, mask=mask, mode='byte', boost_error=False, micro=False)
    finally:
        encoder.add_codewords = add_codewords
    total = table(version, level)['total']
    return {'codewords': list(placed[0][:total]), 'modules': [[1 if cell else 0 for cell in row] for row in qr.matrix]}


request = json.load(sys.stdin)
json.dump({
    'tables': {v: {level: table(v, level) for level in LEVELS} for v in range(1, 41)},
    'exp': list(consts.GALIOS_EXP),
    'log': list(consts.GALIOS_LOG),
    'remainders': [remainder(data, count) for data, count in request['remainders']],
    'symbols': [symbol(*args) for args in request['symbols']],
}, sys.stdout)
