# segno's own placement and block tables (python3-segno), for test/unit/qr-codeword-map.test.ts: module -> codeword, codeword -> block.
import json
import sys
from itertools import chain, zip_longest

from segno import consts, encoder

LEVELS = {'L': consts.ERROR_LEVEL_L, 'M': consts.ERROR_LEVEL_M, 'Q': consts.ERROR_LEVEL_Q, 'H': consts.ERROR_LEVEL_H}


def codeword_map(version):
    """segno's add_codewords given bit indices for bits: each module then holds the index of its bit (-1: none)."""
    matrix = encoder.make_matrix(version)
    encoder.add_finder_patterns(matrix, False)
    encoder.add_alignment_patterns(matrix, version)
    # The dark module is part of the reserved format area in make_matrix; rows as lists so they take any integer.
    rows = tuple([-1 if cell != 0x2 else 0x2 for cell in row] for row in matrix)
    ec = consts.ECC[version][consts.ERROR_LEVEL_L]
    total = sum(info.num_blocks * info.num_total for info in ec)
    free = sum(row.count(0x2) for row in rows)
    # Codeword bits are numbered from 3 up so they never equal the 0x2 marker; remainder bits get -1.
    bits = [3 + i for i in range(total * 8)] + [-1] * (free - total * 8)
    encoder.add_codewords(rows, bits, version)
    return [[(cell - 3) // 8 if cell >= 3 else -1 for cell in row] for row in rows]


def block_map(version, level):
    """The block of each codeword, interleaved as segno's make_final_message does (zip_longest over the blocks)."""
    data_blocks, ec_blocks, b = [], [], 0
    for info in consts.ECC[version][LEVELS[level]]:
        for _ in range(info.num_blocks):
            data_blocks.append([b] * info.num_data)
            ec_blocks.append([b] * (info.num_total - info.num_data))
            b += 1
    data = [x for x in chain.from_iterable(zip_longest(*data_blocks)) if x is not None]
    ecc = [x for x in chain.from_iterable(zip_longest(*ec_blocks)) if x is not None]
    return data + ecc


def ec_per_block(version, level):
    infos = consts.ECC[version][LEVELS[level]]
    return [info.num_total - info.num_data for info in infos]


versions = json.load(sys.stdin)
json.dump({
    str(v): {
        'modules': codeword_map(v),
        'blocks': {level: block_map(v, level) for level in LEVELS},
        'ecPerBlock': {level: ec_per_block(v, level) for level in LEVELS},
    } for v in versions
}, sys.stdout)
