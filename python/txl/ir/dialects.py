"""Builders of the ops the txl frontend emits, one per op, generated from ODS by gen_ops.py: do not edit.

Regenerate with ``python3 python/txl/ir/gen_ops.py`` (or ``ninja -C build txl-docs``) after an
ODS change. Each builder takes the op's operands positionally (``None`` for an absent optional operand, a
list for a variadic one), its result types, attributes and regions by keyword, all named as in ODS, and
returns an unattached ``ir.Op``; ``txl.ir`` checks it against ``SPECS`` and prints it.
"""

from . import REQUIRED as _REQUIRED, build_op as _build

# name -> {operands: [(name, single|optional|variadic, constraint)], results: [(name, kind)],
#          attrs: [(name, kind, optional, default)], regions: [(name, kind)], segments: AttrSizedOperandSegments,
#          same_type: SameOperandsAndResultType,
#          format: the declarative assembly format, None where the op has a C++ parser (generic form)}
SPECS = {
    'txl.addptr': {'operands': [('ptr', 'single', 'txl pointer or ranked tensor of txl pointer values'), ('offset', 'single', 'signless integer or ranked tensor of signless integer values')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$ptr `,` $offset attr-dict `:` qualified(type($ptr)) `,` qualified(type($offset))'},
    'txl.advance': {'operands': [('ptr', 'single', 'block pointer'), ('offsets', 'variadic', 'variadic of 32-bit signless integer')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$ptr `,` `[` $offsets `]` attr-dict `:` qualified(type($ptr))'},
    'txl.assert': {'operands': [('condition', 'single', '1-bit signless integer or ranked tensor of any type values')], 'results': [], 'attrs': [('message', ('str',), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$condition `,` $message attr-dict `:` qualified(type($condition))'},
    'txl.async_load': {'operands': [('ptrs', 'single', 'ranked tensor of txl pointer values'), ('dst', 'single', 'shared-memory view (one stage)'), ('mask', 'optional', '1-bit signless integer or ranked tensor of 1-bit signless integer values'), ('other', 'optional', 'ranked tensor of any type values')], 'results': [], 'attrs': [('contiguity', ('int', 'i32'), True, -1), ('cache', ('enum', 'txl', 'cache', False, {'none': 0, 'ca': 1, 'cg': 2, 'wb': 3, 'cs': 4, 'wt': 5, 'cv': 6}, None), True, 'none'), ('evict', ('enum', 'txl', 'evict', False, {'evict_normal': 0, 'evict_first': 1, 'evict_last': 2}, None), True, 'evict_normal')], 'regions': [], 'segments': True, 'same_type': False, 'format': '$ptrs `,` $dst (`mask` $mask^ `:` qualified(type($mask)))? (`other` $other^ `:` qualified(type($other)))? attr-dict `:` qualified(type($ptrs)) `,` qualified(type($dst))'},
    'txl.async_load_wait': {'operands': [], 'results': [], 'attrs': [('pendings', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$pendings attr-dict'},
    'txl.atomic_cas': {'operands': [('ptr', 'single', 'txl pointer or ranked tensor of txl pointer values'), ('cmp', 'single', 'any type'), ('value', 'single', 'any type'), ('scratch', 'optional', 'shared-memory view (one stage)')], 'results': [('result', 'single')], 'attrs': [('sem', ('enum', 'txl', 'sem', False, {'relaxed': 0, 'acquire': 1, 'release': 2, 'acq_rel': 3}, None), False, None), ('scope', ('enum', 'txl', 'scope', False, {'cta': 0, 'cluster': 1, 'gpu': 2, 'sys': 3}, None), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$sem $scope $ptr `,` $cmp `,` $value (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:` qualified(type($ptr)) `,` qualified(type($value))'},
    'txl.atomic_rmw': {'operands': [('ptr', 'single', 'txl pointer or ranked tensor of txl pointer values'), ('value', 'single', 'any type'), ('mask', 'optional', '1-bit signless integer or ranked tensor of 1-bit signless integer values'), ('scratch', 'optional', 'shared-memory view (one stage)')], 'results': [('result', 'single')], 'attrs': [('kind', ('enum', 'txl', 'atomic_kind', False, {'add': 0, 'max': 1, 'min': 2, 'umax': 3, 'umin': 4, 'and': 5, 'or': 6, 'xor': 7, 'xchg': 8}, None), False, None), ('sem', ('enum', 'txl', 'sem', False, {'relaxed': 0, 'acquire': 1, 'release': 2, 'acq_rel': 3}, None), False, None), ('scope', ('enum', 'txl', 'scope', False, {'cta': 0, 'cluster': 1, 'gpu': 2, 'sys': 3}, None), False, None)], 'regions': [], 'segments': True, 'same_type': False, 'format': '$kind $sem $scope $ptr `,` $value (`mask` $mask^)? (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:` qualified(type($ptr)) `,` qualified(type($value))'},
    'txl.bar_arrive': {'operands': [], 'results': [], 'attrs': [('bar', ('int', 'i32'), False, None), ('numThreads', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$bar `,` $numThreads attr-dict'},
    'txl.bar_wait': {'operands': [], 'results': [], 'attrs': [('bar', ('int', 'i32'), False, None), ('numThreads', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$bar `,` $numThreads attr-dict'},
    'txl.block_load': {'operands': [('ptr', 'single', 'block pointer')], 'results': [('result', 'single')], 'attrs': [('boundary_check', ('array', 'i32'), True, None), ('padding', ('enum', 'txl', 'padding', False, {'zero': 0, 'nan': 1}, None), True, None), ('cache', ('enum', 'txl', 'cache', False, {'none': 0, 'ca': 1, 'cg': 2, 'wb': 3, 'cs': 4, 'wt': 5, 'cv': 6}, None), True, 'none'), ('evict', ('enum', 'txl', 'evict', False, {'evict_normal': 0, 'evict_first': 1, 'evict_last': 2}, None), True, 'evict_normal'), ('isVolatile', ('unit',), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$ptr (`boundary_check` `=` $boundary_check^)? (`padding` $padding^)? attr-dict `:` qualified(type($ptr)) `->` qualified(type($result))'},
    'txl.block_store': {'operands': [('ptr', 'single', 'block pointer'), ('value', 'single', 'any type')], 'results': [], 'attrs': [('boundary_check', ('array', 'i32'), True, None), ('cache', ('enum', 'txl', 'cache', False, {'none': 0, 'ca': 1, 'cg': 2, 'wb': 3, 'cs': 4, 'wt': 5, 'cv': 6}, None), True, 'none'), ('evict', ('enum', 'txl', 'evict', False, {'evict_normal': 0, 'evict_first': 1, 'evict_last': 2}, None), True, 'evict_normal')], 'regions': [], 'segments': False, 'same_type': False, 'format': '$ptr `,` $value (`boundary_check` `=` $boundary_check^)? attr-dict `:` qualified(type($ptr)) `,` type($value)'},
    'txl.broadcast': {'operands': [('src', 'single', 'ranked tensor of any type values')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.cluster_barrier': {'operands': [], 'results': [], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': 'attr-dict'},
    'txl.cta_rank': {'operands': [], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': 'attr-dict'},
    'txl.desc_load': {'operands': [('desc', 'single', 'TMA descriptor'), ('indices', 'variadic', 'variadic of 32-bit signless integer')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$desc `[` $indices `]` attr-dict `:` qualified(type($desc)) `->` qualified(type($result))'},
    'txl.desc_store': {'operands': [('desc', 'single', 'TMA descriptor'), ('indices', 'variadic', 'variadic of 32-bit signless integer'), ('value', 'single', 'ranked tensor of any type values')], 'results': [], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$desc `[` $indices `]` `,` $value attr-dict `:` qualified(type($desc)) `,` qualified(type($value))'},
    'txl.dot': {'operands': [('a', 'single', 'shared-memory view (one stage) or ranked tensor of any type values'), ('b', 'single', 'shared-memory view (one stage) or ranked tensor of any type values'), ('acc', 'single', 'ranked tensor of any type values'), ('useAcc', 'optional', '1-bit signless integer')], 'results': [('result', 'single')], 'attrs': [('async', ('unit',), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$a `,` $b `,` $acc (`use_acc` $useAcc^)? attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($acc))'},
    'txl.dot_wait': {'operands': [('inputs', 'variadic', 'variadic of any type')], 'results': [('outputs', 'variadic')], 'attrs': [('pendings', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$pendings (`,` $inputs^ `:` qualified(type($inputs)))? attr-dict'},
    'txl.dotx': {'operands': [('a', 'single', 'shared-memory view (one stage) or tensor-memory view (one stage)'), ('b', 'single', 'shared-memory view (one stage)'), ('c', 'single', 'tensor-memory view (one stage) or ranked tensor of any type values'), ('useD', 'optional', '1-bit signless integer'), ('pred', 'optional', '1-bit signless integer'), ('mbars', 'variadic', 'variadic of one mbarrier (!txl.mbar)'), ('mbarPreds', 'variadic', 'variadic of 1-bit signless integer')], 'results': [('result', 'optional')], 'attrs': [('two_ctas', ('unit',), True, None)], 'regions': [], 'segments': True, 'same_type': False, 'format': '$a `,` $b `,` $c (`use_d` $useD^)? (`pred` $pred^)? (`mbars` `(` $mbars^ `)`)? (`preds` `(` $mbarPreds^ `)`)? attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($c)) (`->` qualified(type($result))^)?'},
    'txl.elementwise_inline_asm': {'operands': [('srcs', 'variadic', 'variadic of any type')], 'results': [('results', 'variadic')], 'attrs': [('asm_string', ('str',), False, None), ('constraints', ('str',), False, None), ('pure', ('bool',), False, None), ('packed_element', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$asm_string `,` $constraints `(` $srcs `)` attr-dict `:` functional-type($srcs, $results)'},
    'txl.expand_dims': {'operands': [('src', 'single', 'ranked tensor of any type values')], 'results': [('result', 'single')], 'attrs': [('axis', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src `,` $axis attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.extern_elementwise': {'operands': [('srcs', 'variadic', 'variadic of any type')], 'results': [('result', 'single')], 'attrs': [('symbol', ('str',), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$symbol `(` $srcs `)` attr-dict `:` functional-type($srcs, $result)'},
    'txl.fence_proxy_async': {'operands': [], 'results': [], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': 'attr-dict'},
    'txl.flip': {'operands': [('src', 'single', 'ranked tensor of any type values'), ('scratch', 'optional', 'shared-memory view (one stage)')], 'results': [('result', 'single')], 'attrs': [('axis', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src `axis` $axis (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:` qualified(type($src))'},
    'txl.frag_smem_load': {'operands': [('src', 'single', 'shared-memory view (one stage)'), ('other', 'optional', 'ranked tensor of any type values'), ('pred', 'optional', '1-bit signless integer')], 'results': [('result', 'single')], 'attrs': [('ctaId', ('int', 'i32'), True, -1)], 'regions': [], 'segments': True, 'same_type': False, 'format': '$src (`other` $other^)? (`pred` $pred^)? attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.frag_smem_store': {'operands': [('value', 'single', 'ranked tensor of any type values'), ('dst', 'single', 'shared-memory view (one stage)'), ('mbar', 'optional', 'one mbarrier (!txl.mbar)'), ('pred', 'optional', '1-bit signless integer')], 'results': [], 'attrs': [('ctaId', ('int', 'i32'), True, -1), ('slicedDim', ('int', 'i32'), True, -1)], 'regions': [], 'segments': True, 'same_type': False, 'format': '$value `,` $dst (`mbar` $mbar^)? (`pred` $pred^)? attr-dict `:` qualified(type($value)) `,` qualified(type($dst))'},
    'txl.gather': {'operands': [('src', 'single', 'ranked tensor of any type values'), ('index', 'single', 'ranked tensor of any type values'), ('scratch', 'optional', 'shared-memory view (one stage)')], 'results': [('result', 'single')], 'attrs': [('axis', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src `[` $index `]` `axis` $axis (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:` qualified(type($src)) `,` qualified(type($index)) `->` qualified(type($result))'},
    'txl.get_buffer': {'operands': [('src', 'single', 'shared-memory buffer or tensor-memory buffer or mbarrier'), ('index', 'single', '32-bit signless integer')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src `[` $index `]` attr-dict `:` qualified(type($src))'},
    'txl.histogram': {'operands': [('src', 'single', 'ranked tensor of any type values'), ('mask', 'optional', 'ranked tensor of any type values'), ('scratch', 'optional', 'shared-memory view (one stage)')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': True, 'same_type': False, 'format': '$src (`mask` $mask^ `:` qualified(type($mask)))? (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.int_to_ptr': {'operands': [('src', 'single', 'any type')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src attr-dict `:` type($src) `->` type($result)'},
    'txl.is_warp': {'operands': [], 'results': [('result', 'single')], 'attrs': [('ids', ('array', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$ids attr-dict'},
    'txl.is_warpgroup': {'operands': [], 'results': [('result', 'single')], 'attrs': [('ids', ('array', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$ids attr-dict'},
    'txl.join': {'operands': [('lhs', 'single', 'ranked tensor of any type values'), ('rhs', 'single', 'ranked tensor of any type values')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$lhs `,` $rhs attr-dict `:` qualified(type($lhs)) `->` qualified(type($result))'},
    'txl.lane_id': {'operands': [], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': 'attr-dict'},
    'txl.load': {'operands': [('ptr', 'single', 'txl pointer or ranked tensor of txl pointer values'), ('mask', 'optional', '1-bit signless integer or ranked tensor of 1-bit signless integer values'), ('other', 'optional', 'any type')], 'results': [('result', 'single')], 'attrs': [('cache', ('enum', 'txl', 'cache', False, {'none': 0, 'ca': 1, 'cg': 2, 'wb': 3, 'cs': 4, 'wt': 5, 'cv': 6}, None), True, 'none'), ('evict', ('enum', 'txl', 'evict', False, {'evict_normal': 0, 'evict_first': 1, 'evict_last': 2}, None), True, 'evict_normal'), ('isVolatile', ('unit',), True, None)], 'regions': [], 'segments': True, 'same_type': False, 'format': '$ptr (`mask` $mask^)? (`other` $other^)? attr-dict `:` qualified(type($ptr)) `->` qualified(type($result))'},
    'txl.make_block_ptr': {'operands': [('base', 'single', 'txl pointer'), ('shape', 'variadic', 'variadic of 64-bit signless integer'), ('strides', 'variadic', 'variadic of 64-bit signless integer'), ('offsets', 'variadic', 'variadic of 32-bit signless integer')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': True, 'same_type': False, 'format': '$base `,` `[` $shape `]` `,` `[` $strides `]` `,` `[` $offsets `]` attr-dict `:` qualified(type($base)) `->` qualified(type($result))'},
    'txl.make_range': {'operands': [], 'results': [('result', 'single')], 'attrs': [('start', ('int', 'i32'), False, None), ('end', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$start `,` $end attr-dict `:` qualified(type($result))'},
    'txl.make_tensor_descriptor': {'operands': [('base', 'single', 'txl pointer'), ('shape', 'variadic', 'variadic of 64-bit signless integer'), ('strides', 'variadic', 'variadic of 64-bit signless integer'), ('scratch', 'optional', 'txl pointer')], 'results': [('result', 'single')], 'attrs': [('nan_fill', ('unit',), True, None)], 'regions': [], 'segments': True, 'same_type': False, 'format': '$base `,` `[` $shape `]` `,` `[` $strides `]` (`,` $scratch^)? attr-dict `:` qualified(type($base)) (`,` qualified(type($scratch))^)? `->` qualified(type($result))'},
    'txl.mbar_alloc': {'operands': [], 'results': [('result', 'single')], 'attrs': [('arriveCount', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '`count` $arriveCount attr-dict `:` qualified(type($result))'},
    'txl.mbar_arrive': {'operands': [('mbar', 'single', 'one mbarrier (!txl.mbar)'), ('pred', 'optional', '1-bit signless integer'), ('remoteCtaId', 'optional', '32-bit signless integer')], 'results': [], 'attrs': [('track_async_op', ('unit',), True, None), ('tx_count', ('int', 'i32'), True, 0)], 'regions': [], 'segments': True, 'same_type': False, 'format': '$mbar (`pred` $pred^)? (`remote` $remoteCtaId^)? attr-dict'},
    'txl.mbar_expect': {'operands': [('mbar', 'single', 'one mbarrier (!txl.mbar)'), ('pred', 'optional', '1-bit signless integer')], 'results': [], 'attrs': [('bytes', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$mbar `,` $bytes (`pred` $pred^)? attr-dict'},
    'txl.mbar_wait': {'operands': [('mbar', 'single', 'one mbarrier (!txl.mbar)'), ('phase', 'single', '32-bit signless integer')], 'results': [], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$mbar `,` $phase attr-dict `:` qualified(type($phase))'},
    'txl.num_programs': {'operands': [], 'results': [('result', 'single')], 'attrs': [('axis', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$axis attr-dict'},
    'txl.print': {'operands': [('args', 'variadic', 'variadic of any type')], 'results': [], 'attrs': [('prefix', ('str',), False, None), ('hex', ('unit',), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$prefix ($args^ `:` qualified(type($args)))? attr-dict'},
    'txl.program_id': {'operands': [], 'results': [('result', 'single')], 'attrs': [('axis', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$axis attr-dict'},
    'txl.ptr_to_int': {'operands': [('src', 'single', 'any type')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src attr-dict `:` type($src) `->` type($result)'},
    'txl.reduce': {'operands': [('srcs', 'variadic', 'variadic of ranked tensor of any type values'), ('scratch', 'optional', 'shared-memory view (one stage)')], 'results': [('results', 'variadic')], 'attrs': [('axis', ('int', 'i32'), False, None)], 'regions': [('combineOp', 'single')], 'segments': True, 'same_type': False, 'format': '$srcs `axis` $axis (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:` functional-type($srcs, $results) $combineOp'},
    'txl.reduce_return': {'operands': [('results', 'variadic', 'variadic of any type')], 'results': [], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$results attr-dict `:` qualified(type($results))'},
    'txl.reg_alloc': {'operands': [], 'results': [], 'attrs': [('regCount', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$regCount attr-dict'},
    'txl.reg_dealloc': {'operands': [], 'results': [], 'attrs': [('regCount', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$regCount attr-dict'},
    'txl.relayout': {'operands': [('src', 'single', 'ranked tensor of any type values'), ('scratch', 'optional', 'shared-memory view (one stage)')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.reshape': {'operands': [('src', 'single', 'ranked tensor of any type values')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.scan': {'operands': [('srcs', 'variadic', 'variadic of ranked tensor of any type values'), ('scratch', 'optional', 'shared-memory view (one stage)')], 'results': [('results', 'variadic')], 'attrs': [('axis', ('int', 'i32'), False, None), ('reverse', ('unit',), True, None)], 'regions': [('combineOp', 'single')], 'segments': True, 'same_type': False, 'format': '$srcs `axis` $axis (`reverse` $reverse^)? (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:` functional-type($srcs, $results) $combineOp'},
    'txl.slot_load': {'operands': [('src', 'single', 'shared-memory view (one stage)'), ('other', 'optional', 'signless integer or floating-point'), ('pred', 'optional', '1-bit signless integer')], 'results': [('result', 'single')], 'attrs': [('laneBases', ('array', 'i64'), False, None), ('warpBases', ('array', 'i64'), False, None), ('ctaId', ('int', 'i32'), True, -1)], 'regions': [], 'segments': True, 'same_type': False, 'format': '$src (`other` $other^)? (`pred` $pred^)? attr-dict `:` qualified(type($src)) `->` type($result)'},
    'txl.slot_store': {'operands': [('value', 'single', 'signless integer or floating-point'), ('dst', 'single', 'shared-memory view (one stage)'), ('mbar', 'optional', 'one mbarrier (!txl.mbar)'), ('pred', 'optional', '1-bit signless integer')], 'results': [], 'attrs': [('laneBases', ('array', 'i64'), False, None), ('warpBases', ('array', 'i64'), False, None), ('ctaId', ('int', 'i32'), True, -1)], 'regions': [], 'segments': True, 'same_type': False, 'format': '$value `,` $dst (`mbar` $mbar^)? (`pred` $pred^)? attr-dict `:` type($value) `,` qualified(type($dst))'},
    'txl.smem_alloc': {'operands': [], 'results': [('result', 'single')], 'attrs': [('mutable_', ('unit',), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '(`mutable` $mutable_^)? attr-dict `:` qualified(type($result))'},
    'txl.smem_index': {'operands': [('src', 'single', 'shared-memory view (one stage)'), ('index', 'single', '32-bit signless integer')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src `[` $index `]` attr-dict `:` qualified(type($src))'},
    'txl.smem_load': {'operands': [('src', 'single', 'shared-memory view (one stage)')], 'results': [('result', 'single')], 'attrs': [('ctaId', ('int', 'i32'), True, -1)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.smem_reshape': {'operands': [('src', 'single', 'shared-memory view (one stage)')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.smem_store': {'operands': [('value', 'single', 'ranked tensor of any type values'), ('dst', 'single', 'shared-memory view (one stage)')], 'results': [], 'attrs': [('ctaId', ('int', 'i32'), True, -1)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$value `,` $dst attr-dict `:` qualified(type($value)) `,` qualified(type($dst))'},
    'txl.smem_subslice': {'operands': [('src', 'single', 'shared-memory view (one stage)')], 'results': [('result', 'single')], 'attrs': [('offsets', ('array', 'i64'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src $offsets attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.smem_trans': {'operands': [('src', 'single', 'shared-memory view (one stage)')], 'results': [('result', 'single')], 'attrs': [('order', ('array', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src $order attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.sort': {'operands': [('src', 'single', 'ranked tensor of any type values'), ('scratch', 'optional', 'shared-memory view (one stage)')], 'results': [('result', 'single')], 'attrs': [('axis', ('int', 'i32'), False, None), ('descending', ('unit',), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src `axis` $axis (`descending` $descending^)? (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict `:` qualified(type($src))'},
    'txl.splat': {'operands': [('src', 'single', 'any type')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.split': {'operands': [('src', 'single', 'ranked tensor of any type values')], 'results': [('outLHS', 'single'), ('outRHS', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src attr-dict `:` qualified(type($src)) `->` qualified(type($outLHS))'},
    'txl.store': {'operands': [('ptr', 'single', 'txl pointer or ranked tensor of txl pointer values'), ('value', 'single', 'any type'), ('mask', 'optional', '1-bit signless integer or ranked tensor of 1-bit signless integer values')], 'results': [], 'attrs': [('cache', ('enum', 'txl', 'cache', False, {'none': 0, 'ca': 1, 'cg': 2, 'wb': 3, 'cs': 4, 'wt': 5, 'cv': 6}, None), True, 'none'), ('evict', ('enum', 'txl', 'evict', False, {'evict_normal': 0, 'evict_first': 1, 'evict_last': 2}, None), True, 'evict_normal')], 'regions': [], 'segments': False, 'same_type': False, 'format': '$ptr `,` $value (`mask` $mask^)? attr-dict `:` qualified(type($ptr)) `,` qualified(type($value))'},
    'txl.tid': {'operands': [], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': 'attr-dict'},
    'txl.tma_gather': {'operands': [('desc', 'single', 'TMA descriptor'), ('x_offsets', 'single', 'ranked tensor of 32-bit signless integer values'), ('y_offset', 'single', '32-bit signless integer'), ('dst', 'single', 'shared-memory view (one stage)'), ('mbar', 'single', 'one mbarrier (!txl.mbar)')], 'results': [], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$desc `[` $x_offsets `,` $y_offset `]` `,` $dst `,` $mbar attr-dict `:` qualified(type($desc)) `,` qualified(type($x_offsets)) `,` qualified(type($dst))'},
    'txl.tma_load': {'operands': [('desc', 'single', 'TMA descriptor'), ('indices', 'variadic', 'variadic of 32-bit signless integer'), ('dst', 'single', 'shared-memory view (one stage)'), ('mbar', 'single', 'one mbarrier (!txl.mbar)')], 'results': [], 'attrs': [('cache', ('enum', 'txl', 'cache', False, {'none': 0, 'ca': 1, 'cg': 2, 'wb': 3, 'cs': 4, 'wt': 5, 'cv': 6}, None), True, 'none'), ('evict', ('enum', 'txl', 'evict', False, {'evict_normal': 0, 'evict_first': 1, 'evict_last': 2}, None), True, 'evict_normal')], 'regions': [], 'segments': False, 'same_type': False, 'format': '$desc `[` $indices `]` `,` $dst `,` $mbar attr-dict `:` qualified(type($desc)) `,` qualified(type($dst))'},
    'txl.tma_store': {'operands': [('src', 'single', 'shared-memory view (one stage)'), ('desc', 'single', 'TMA descriptor'), ('indices', 'variadic', 'variadic of 32-bit signless integer')], 'results': [], 'attrs': [('reduce', ('enum', 'txl', 'tma_reduce', False, {'add': 0, 'min': 1, 'max': 2}, None), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src `,` $desc `[` $indices `]` (`reduce` $reduce^)? attr-dict `:` qualified(type($src)) `,` qualified(type($desc))'},
    'txl.tma_store_wait': {'operands': [], 'results': [], 'attrs': [('pendings', ('int', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$pendings attr-dict'},
    'txl.tmem_alloc': {'operands': [], 'results': [('result', 'single')], 'attrs': [('mutable_', ('unit',), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '(`mutable` $mutable_^)? attr-dict `:` qualified(type($result))'},
    'txl.tmem_load': {'operands': [('src', 'single', 'tensor-memory view (one stage)')], 'results': [('result', 'single')], 'attrs': [('ctaId', ('int', 'i32'), True, -1)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.tmem_store': {'operands': [('value', 'single', 'ranked tensor of any type values'), ('dst', 'single', 'tensor-memory view (one stage)')], 'results': [], 'attrs': [('ctaId', ('int', 'i32'), True, -1)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$value `,` $dst attr-dict `:` qualified(type($value)) `,` qualified(type($dst))'},
    'txl.trans': {'operands': [('src', 'single', 'ranked tensor of any type values')], 'results': [('result', 'single')], 'attrs': [('order', ('array', 'i32'), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$src `,` $order attr-dict `:` qualified(type($src)) `->` qualified(type($result))'},
    'txl.warp_id': {'operands': [], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': 'attr-dict'},
    'txl.warp_reduce': {'operands': [('srcs', 'variadic', 'variadic of any type')], 'results': [('results', 'variadic')], 'attrs': [], 'regions': [('combineOp', 'single')], 'segments': False, 'same_type': False, 'format': '$srcs attr-dict `:` functional-type($srcs, $results) $combineOp'},
    'txl.warpgroup_id': {'operands': [], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': 'attr-dict'},
    'arith.addf': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'arith.addi': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [('overflowFlags', ('enum', 'arith', 'overflow', True, {'none': 0, 'nsw': 1, 'nuw': 2}, ', '), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`overflow` `` $overflowFlags^)? attr-dict `:` type($result)'},
    'arith.addui_extended': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('sum', 'single'), ('overflow', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$lhs `,` $rhs attr-dict `:` type($sum) `,` type($overflow)'},
    'arith.andi': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'arith.bitcast': {'operands': [('in', 'single', 'signless-integer-or-float-like or memref of signless-integer or float')], 'results': [('out', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in attr-dict `:` type($in) `to` type($out)'},
    'arith.ceildivsi': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'arith.ceildivui': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'arith.cmpf': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('predicate', ('intenum', 'i64', {'false': 0, 'oeq': 1, 'ogt': 2, 'oge': 3, 'olt': 4, 'ole': 5, 'one': 6, 'ord': 7, 'ueq': 8, 'ugt': 9, 'uge': 10, 'ult': 11, 'ule': 12, 'une': 13, 'uno': 14, 'true': 15}), False, None), ('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': False, 'format': '$predicate `,` $lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($lhs)'},
    'arith.cmpi': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [('predicate', ('intenum', 'i64', {'eq': 0, 'ne': 1, 'slt': 2, 'sle': 3, 'sgt': 4, 'sge': 5, 'ult': 6, 'ule': 7, 'ugt': 8, 'uge': 9}), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)'},
    'arith.constant': {'operands': [], 'results': [('result', 'single')], 'attrs': [('value', ('raw',), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': 'attr-dict $value'},
    'arith.divf': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'arith.divsi': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [('isExact', ('unit',), True, None)], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`exact` $isExact^)? attr-dict `:` type($result)'},
    'arith.divui': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [('isExact', ('unit',), True, None)], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`exact` $isExact^)? attr-dict `:` type($result)'},
    'arith.extf': {'operands': [('in', 'single', 'floating-point-like')], 'results': [('out', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in (`fastmath` `` $fastmath^)? attr-dict `:` type($in) `to` type($out)'},
    'arith.extsi': {'operands': [('in', 'single', 'signless-fixed-width-integer-like')], 'results': [('out', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in attr-dict `:` type($in) `to` type($out)'},
    'arith.extui': {'operands': [('in', 'single', 'signless-fixed-width-integer-like')], 'results': [('out', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in attr-dict `:` type($in) `to` type($out)'},
    'arith.floordivsi': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'arith.fptosi': {'operands': [('in', 'single', 'floating-point-like')], 'results': [('out', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in attr-dict `:` type($in) `to` type($out)'},
    'arith.fptoui': {'operands': [('in', 'single', 'floating-point-like')], 'results': [('out', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in attr-dict `:` type($in) `to` type($out)'},
    'arith.index_cast': {'operands': [('in', 'single', 'signless-integer-like or memref of signless-integer')], 'results': [('out', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in attr-dict `:` type($in) `to` type($out)'},
    'arith.index_castui': {'operands': [('in', 'single', 'signless-integer-like or memref of signless-integer')], 'results': [('out', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in attr-dict `:` type($in) `to` type($out)'},
    'arith.maximumf': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'arith.maxnumf': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'arith.maxsi': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'arith.maxui': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'arith.minimumf': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'arith.minnumf': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'arith.minsi': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'arith.minui': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'arith.mulf': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'arith.muli': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [('overflowFlags', ('enum', 'arith', 'overflow', True, {'none': 0, 'nsw': 1, 'nuw': 2}, ', '), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`overflow` `` $overflowFlags^)? attr-dict `:` type($result)'},
    'arith.mulsi_extended': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('low', 'single'), ('high', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$lhs `,` $rhs attr-dict `:` type($lhs)'},
    'arith.mului_extended': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('low', 'single'), ('high', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$lhs `,` $rhs attr-dict `:` type($lhs)'},
    'arith.negf': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'arith.ori': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'arith.remf': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'arith.remsi': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'arith.remui': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'arith.scaling_extf': {'operands': [('in', 'single', 'floating-point-like'), ('scale', 'single', 'floating-point-like')], 'results': [('out', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in `,` $scale (`fastmath` `` $fastmath^)? attr-dict `:` type($in) `,` type($scale) `to` type($out)'},
    'arith.scaling_truncf': {'operands': [('in', 'single', 'floating-point-like'), ('scale', 'single', 'floating-point-like')], 'results': [('out', 'single')], 'attrs': [('roundingmode', ('intenum', 'i32', {'to_nearest_even': 0, 'downward': 1, 'upward': 2, 'toward_zero': 3, 'to_nearest_away': 4}), True, None), ('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in `,` $scale ($roundingmode^)? (`fastmath` `` $fastmath^)? attr-dict `:` type($in) `,` type($scale) `to` type($out)'},
    'arith.select': {'operands': [('condition', 'single', 'bool-like'), ('true_value', 'single', 'any type'), ('false_value', 'single', 'any type')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': None},
    'arith.shli': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [('overflowFlags', ('enum', 'arith', 'overflow', True, {'none': 0, 'nsw': 1, 'nuw': 2}, ', '), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`overflow` `` $overflowFlags^)? attr-dict `:` type($result)'},
    'arith.shrsi': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [('isExact', ('unit',), True, None)], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`exact` $isExact^)? attr-dict `:` type($result)'},
    'arith.shrui': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [('isExact', ('unit',), True, None)], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`exact` $isExact^)? attr-dict `:` type($result)'},
    'arith.sitofp': {'operands': [('in', 'single', 'signless-fixed-width-integer-like')], 'results': [('out', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in attr-dict `:` type($in) `to` type($out)'},
    'arith.subf': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'arith.subi': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [('overflowFlags', ('enum', 'arith', 'overflow', True, {'none': 0, 'nsw': 1, 'nuw': 2}, ', '), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`overflow` `` $overflowFlags^)? attr-dict `:` type($result)'},
    'arith.truncf': {'operands': [('in', 'single', 'floating-point-like')], 'results': [('out', 'single')], 'attrs': [('roundingmode', ('intenum', 'i32', {'to_nearest_even': 0, 'downward': 1, 'upward': 2, 'toward_zero': 3, 'to_nearest_away': 4}), True, None), ('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in ($roundingmode^)? (`fastmath` `` $fastmath^)? attr-dict `:` type($in) `to` type($out)'},
    'arith.trunci': {'operands': [('in', 'single', 'signless-fixed-width-integer-like')], 'results': [('out', 'single')], 'attrs': [('overflowFlags', ('enum', 'arith', 'overflow', True, {'none': 0, 'nsw': 1, 'nuw': 2}, ', '), True, 'none')], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in (`overflow` `` $overflowFlags^)? attr-dict `:` type($in) `to` type($out)'},
    'arith.uitofp': {'operands': [('in', 'single', 'signless-fixed-width-integer-like')], 'results': [('out', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$in attr-dict `:` type($in) `to` type($out)'},
    'arith.xori': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'math.absf': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.absi': {'operands': [('operand', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand attr-dict `:` type($result)'},
    'math.acos': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.acosh': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.asin': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.asinh': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.atan': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.atan2': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.atanh': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.cbrt': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.ceil': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.clampf': {'operands': [('value', 'single', 'floating-point-like'), ('min', 'single', 'floating-point-like'), ('max', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$value `to` ` ` `[` $min `,` $max `]` (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.copysign': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.cos': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.cosh': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.ctlz': {'operands': [('operand', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand attr-dict `:` type($result)'},
    'math.ctpop': {'operands': [('operand', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand attr-dict `:` type($result)'},
    'math.cttz': {'operands': [('operand', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand attr-dict `:` type($result)'},
    'math.erf': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.erfc': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.exp': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.exp2': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.expm1': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.floor': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.fma': {'operands': [('a', 'single', 'floating-point-like'), ('b', 'single', 'floating-point-like'), ('c', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$a `,` $b `,` $c (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.fpowi': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': False, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($lhs) `,` type($rhs)'},
    'math.ipowi': {'operands': [('lhs', 'single', 'signless-integer-like'), ('rhs', 'single', 'signless-integer-like')], 'results': [('result', 'single')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs attr-dict `:` type($result)'},
    'math.isfinite': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': False, 'format': '$operand attr-dict `:` type($operand)'},
    'math.isinf': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': False, 'format': '$operand attr-dict `:` type($operand)'},
    'math.isnan': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': False, 'format': '$operand attr-dict `:` type($operand)'},
    'math.isnormal': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': False, 'format': '$operand attr-dict `:` type($operand)'},
    'math.log': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.log10': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.log1p': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.log2': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.powf': {'operands': [('lhs', 'single', 'floating-point-like'), ('rhs', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.round': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.roundeven': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.rsqrt': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.sin': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.sincos': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('sin', 'single'), ('cos', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': False, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($operand)'},
    'math.sinh': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.sqrt': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.tan': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.tanh': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'math.trunc': {'operands': [('operand', 'single', 'floating-point-like')], 'results': [('result', 'single')], 'attrs': [('fastmath', ('enum', 'arith', 'fastmath', True, {'none': 0, 'reassoc': 1, 'nnan': 2, 'ninf': 4, 'nsz': 8, 'arcp': 16, 'contract': 32, 'afn': 64, 'fast': 127}, ','), True, 'none')], 'regions': [], 'segments': False, 'same_type': True, 'format': '$operand (`fastmath` `` $fastmath^)? attr-dict `:` type($result)'},
    'scf.condition': {'operands': [('condition', 'single', '1-bit signless integer'), ('args', 'variadic', 'variadic of any type')], 'results': [], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '`(` $condition `)` attr-dict ($args^ `:` type($args))?'},
    'scf.execute_region': {'operands': [], 'results': [('result', 'variadic')], 'attrs': [('no_inline', ('unit',), True, None)], 'regions': [('region', 'single')], 'segments': False, 'same_type': False, 'format': None},
    'scf.for': {'operands': [('lowerBound', 'single', 'signless integer or index'), ('upperBound', 'single', 'signless integer or index'), ('step', 'single', 'signless integer or index'), ('initArgs', 'variadic', 'variadic of any type')], 'results': [('results', 'variadic')], 'attrs': [('unsignedCmp', ('unit',), True, None)], 'regions': [('region', 'single')], 'segments': False, 'same_type': False, 'format': None},
    'scf.forall': {'operands': [('dynamicLowerBound', 'variadic', 'variadic of index'), ('dynamicUpperBound', 'variadic', 'variadic of index'), ('dynamicStep', 'variadic', 'variadic of index'), ('outputs', 'variadic', 'variadic of ranked tensor of any type values')], 'results': [('results', 'variadic')], 'attrs': [('staticLowerBound', ('array', 'i64'), False, None), ('staticUpperBound', ('array', 'i64'), False, None), ('staticStep', ('array', 'i64'), False, None), ('mapping', ('raw',), True, None)], 'regions': [('region', 'single')], 'segments': True, 'same_type': False, 'format': None},
    'scf.forall.in_parallel': {'operands': [], 'results': [], 'attrs': [], 'regions': [('region', 'single')], 'segments': False, 'same_type': False, 'format': None},
    'scf.if': {'operands': [('condition', 'single', '1-bit signless integer')], 'results': [('results', 'variadic')], 'attrs': [], 'regions': [('thenRegion', 'single'), ('elseRegion', 'single')], 'segments': False, 'same_type': False, 'format': None},
    'scf.index_switch': {'operands': [('arg', 'single', 'index')], 'results': [('results', 'variadic')], 'attrs': [('cases', ('array', 'i64'), False, None)], 'regions': [('defaultRegion', 'single'), ('caseRegions', 'variadic')], 'segments': False, 'same_type': False, 'format': '$arg attr-dict (`->` type($results)^)? custom<SwitchCases>($cases, $caseRegions) `\\n` `` `default` $defaultRegion'},
    'scf.parallel': {'operands': [('lowerBound', 'variadic', 'variadic of index'), ('upperBound', 'variadic', 'variadic of index'), ('step', 'variadic', 'variadic of index'), ('initVals', 'variadic', 'variadic of any type')], 'results': [('results', 'variadic')], 'attrs': [], 'regions': [('region', 'single')], 'segments': True, 'same_type': False, 'format': None},
    'scf.reduce': {'operands': [('operands', 'variadic', 'variadic of any type')], 'results': [], 'attrs': [], 'regions': [('reductions', 'variadic')], 'segments': False, 'same_type': False, 'format': '(`(` $operands^ `:` type($operands) `)`)? $reductions attr-dict'},
    'scf.reduce.return': {'operands': [('result', 'single', 'any type')], 'results': [], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '$result attr-dict `:` type($result)'},
    'scf.while': {'operands': [('inits', 'variadic', 'variadic of any type')], 'results': [('results', 'variadic')], 'attrs': [], 'regions': [('before', 'single'), ('after', 'single')], 'segments': False, 'same_type': False, 'format': None},
    'scf.yield': {'operands': [('results', 'variadic', 'variadic of any type')], 'results': [], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': 'attr-dict ($results^ `:` type($results))?'},
    'func.call': {'operands': [('operands', 'variadic', 'variadic of any type')], 'results': [('result', 'variadic')], 'attrs': [('callee', ('symref',), False, None), ('arg_attrs', ('raw',), True, None), ('res_attrs', ('raw',), True, None), ('no_inline', ('unit',), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$callee `(` $operands `)` attr-dict `:` functional-type($operands, results)'},
    'func.call_indirect': {'operands': [('callee', 'single', 'function type'), ('callee_operands', 'variadic', 'variadic of any type')], 'results': [('results', 'variadic')], 'attrs': [('arg_attrs', ('raw',), True, None), ('res_attrs', ('raw',), True, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': '$callee `(` $callee_operands `)` attr-dict `:` type($callee)'},
    'func.constant': {'operands': [], 'results': [('result', 'single')], 'attrs': [('value', ('symref',), False, None)], 'regions': [], 'segments': False, 'same_type': False, 'format': 'attr-dict $value `:` type(results)'},
    'func.func': {'operands': [], 'results': [], 'attrs': [('sym_name', ('str',), False, None), ('function_type', ('type',), False, None), ('sym_visibility', ('str',), True, None), ('arg_attrs', ('raw',), True, None), ('res_attrs', ('raw',), True, None), ('no_inline', ('unit',), True, None)], 'regions': [('body', 'single')], 'segments': False, 'same_type': False, 'format': None},
    'func.return': {'operands': [('operands', 'variadic', 'variadic of any type')], 'results': [], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': 'attr-dict ($operands^ `:` type($operands))?'},
    'builtin.module': {'operands': [], 'results': [], 'attrs': [('sym_name', ('str',), True, None), ('sym_visibility', ('str',), True, None)], 'regions': [('bodyRegion', 'single')], 'segments': False, 'same_type': False, 'format': '($sym_name^)? attr-dict-with-keyword $bodyRegion'},
    'builtin.unrealized_conversion_cast': {'operands': [('inputs', 'variadic', 'variadic of any type')], 'results': [('outputs', 'variadic')], 'attrs': [], 'regions': [], 'segments': False, 'same_type': False, 'format': '($inputs^ `:` type($inputs))? `to` type($outputs) attr-dict'},
}


class txl:
    """The txl dialect (txl/Dialect/TXL/IR/TXLOps.td, this repository's include/)."""

    @staticmethod
    def addptr(ptr, offset, *, result):
        "advance pointers by element offsets."
        return _build('txl.addptr', [ptr, offset], [result], {}, [])

    @staticmethod
    def advance(ptr, offsets, *, result):
        "move a block pointer by whole elements (tl.advance)."
        return _build('txl.advance', [ptr, offsets], [result], {}, [])

    @staticmethod
    def assert_(condition, *, message):
        "stop the kernel with a message where a condition is false."
        return _build('txl.assert', [condition], [], {'message': message}, [])

    @staticmethod
    def async_load(ptrs, dst, mask=None, other=None, *, contiguity=None, cache=None, evict=None):
        "cp.async gather from a tensor of global pointers into shared memory."
        return _build('txl.async_load', [ptrs, dst, mask, other], [], {'contiguity': contiguity, 'cache': cache, 'evict': evict}, [])

    @staticmethod
    def async_load_wait(*, pendings):
        "wait until at most `pendings` cp.async groups are in flight."
        return _build('txl.async_load_wait', [], [], {'pendings': pendings}, [])

    @staticmethod
    def atomic_cas(ptr, cmp, value, scratch=None, *, result, sem, scope):
        "atomic compare-and-swap through a pointer or a tile of pointers."
        return _build('txl.atomic_cas', [ptr, cmp, value, scratch], [result], {'sem': sem, 'scope': scope}, [])

    @staticmethod
    def atomic_rmw(ptr, value, mask=None, scratch=None, *, result, kind, sem, scope):
        "atomic read-modify-write through a pointer or a tile of pointers."
        return _build('txl.atomic_rmw', [ptr, value, mask, scratch], [result], {'kind': kind, 'sem': sem, 'scope': scope}, [])

    @staticmethod
    def bar_arrive(*, bar, numThreads):
        "arrive at named barrier `bar` (bar.arrive) without waiting."
        return _build('txl.bar_arrive', [], [], {'bar': bar, 'numThreads': numThreads}, [])

    @staticmethod
    def bar_wait(*, bar, numThreads):
        "arrive at named barrier `bar` and wait for `numThreads` (bar.sync)."
        return _build('txl.bar_wait', [], [], {'bar': bar, 'numThreads': numThreads}, [])

    @staticmethod
    def block_load(ptr, *, result, boundary_check=None, padding=None, cache=None, evict=None, isVolatile=None):
        "load the block a block pointer points to (tl.load of a block pointer)."
        return _build('txl.block_load', [ptr], [result], {'boundary_check': boundary_check, 'padding': padding, 'cache': cache, 'evict': evict, 'isVolatile': isVolatile}, [])

    @staticmethod
    def block_store(ptr, value, *, boundary_check=None, cache=None, evict=None):
        "store a tile into the block a block pointer points to (tl.store of a block pointer)."
        return _build('txl.block_store', [ptr, value], [], {'boundary_check': boundary_check, 'cache': cache, 'evict': evict}, [])

    @staticmethod
    def broadcast(src, *, result):
        "repeat size-1 dimensions of a tile."
        return _build('txl.broadcast', [src], [result], {}, [])

    @staticmethod
    def cluster_barrier():
        "barrier of every thread of every CTA of the cluster."
        return _build('txl.cluster_barrier', [], [], {}, [])

    @staticmethod
    def cta_rank(*, result):
        "rank of this CTA in its cluster (%cluster_ctarank)."
        return _build('txl.cta_rank', [], [result], {}, [])

    @staticmethod
    def desc_load(desc, indices, *, result):
        "load a tile through a TMA descriptor into registers (Triton's desc.load)."
        return _build('txl.desc_load', [desc, indices], [result], {}, [])

    @staticmethod
    def desc_store(desc, indices, value):
        "store a register tile through a TMA descriptor (Triton's desc.store)."
        return _build('txl.desc_store', [desc, indices, value], [], {}, [])

    @staticmethod
    def dot(a, b, acc, useAcc=None, *, result, async_=None):
        "warpgroup MMA (wgmma): d = a * b + acc."
        return _build('txl.dot', [a, b, acc, useAcc], [result], {'async': async_}, [])

    @staticmethod
    def dot_wait(inputs, *, outputs, pendings):
        "wait until at most `pendings` wgmma groups are in flight."
        return _build('txl.dot_wait', [inputs], [outputs], {'pendings': pendings}, [])

    @staticmethod
    def dotx(a, b, c, useD=None, pred=None, mbars=_REQUIRED, mbarPreds=_REQUIRED, *, result, two_ctas=None):
        "tcgen05 MMA (sm_100a) with completion mbarriers."
        return _build('txl.dotx', [a, b, c, useD, pred, mbars, mbarPreds], [result], {'two_ctas': two_ctas}, [])

    @staticmethod
    def elementwise_inline_asm(srcs, *, results, asm_string, constraints, pure, packed_element):
        "user PTX applied to the elements of tiles (tl.inline_asm_elementwise)."
        return _build('txl.elementwise_inline_asm', [srcs], [results], {'asm_string': asm_string, 'constraints': constraints, 'pure': pure, 'packed_element': packed_element}, [])

    @staticmethod
    def expand_dims(src, *, result, axis):
        "insert a size-1 dimension at `axis` (x[:, None])."
        return _build('txl.expand_dims', [src], [result], {'axis': axis}, [])

    @staticmethod
    def extern_elementwise(srcs, *, result, symbol):
        "a libdevice function applied to every element (tl.extra.cuda.libdevice)."
        return _build('txl.extern_elementwise', [srcs], [result], {'symbol': symbol}, [])

    @staticmethod
    def fence_proxy_async():
        "make generic-proxy shared-memory writes visible to the async proxy."
        return _build('txl.fence_proxy_async', [], [], {}, [])

    @staticmethod
    def flip(src, scratch=None, *, result, axis):
        "reverse a tile along `axis` (tl.flip)."
        return _build('txl.flip', [src, scratch], [result], {'axis': axis}, [])

    @staticmethod
    def frag_smem_load(src, other=None, pred=None, *, result, ctaId=None):
        "predicated, partial shared-memory load."
        return _build('txl.frag_smem_load', [src, other, pred], [result], {'ctaId': ctaId}, [])

    @staticmethod
    def frag_smem_store(value, dst, mbar=None, pred=None, *, ctaId=None, slicedDim=None):
        "predicated, partial shared-memory store (optionally signalling an mbarrier)."
        return _build('txl.frag_smem_store', [value, dst, mbar, pred], [], {'ctaId': ctaId, 'slicedDim': slicedDim}, [])

    @staticmethod
    def gather(src, index, scratch=None, *, result, axis):
        "elements of a tile picked along `axis` by a tile of indices (tl.gather)."
        return _build('txl.gather', [src, index, scratch], [result], {'axis': axis}, [])

    @staticmethod
    def get_buffer(src, index, *, result):
        "one stage of a shared-memory, tensor-memory or mbarrier allocation."
        return _build('txl.get_buffer', [src, index], [result], {}, [])

    @staticmethod
    def histogram(src, mask=None, scratch=None, *, result):
        "counts of the values 0 .. num_bins - 1 in a 1-D tile (tl.histogram)."
        return _build('txl.histogram', [src, mask, scratch], [result], {}, [])

    @staticmethod
    def int_to_ptr(src, *, result):
        "int64 addresses as pointers (tl.cast of int64 to a pointer type)."
        return _build('txl.int_to_ptr', [src], [result], {}, [])

    @staticmethod
    def is_warp(*, result, ids):
        "true in the warps listed (Blackwell-style warp roles)."
        return _build('txl.is_warp', [], [result], {'ids': ids}, [])

    @staticmethod
    def is_warpgroup(*, result, ids):
        "true in the warpgroups listed (warp specialization)."
        return _build('txl.is_warpgroup', [], [result], {'ids': ids}, [])

    @staticmethod
    def join(lhs, rhs, *, result):
        "stack two tiles along a new last dimension of size 2 (tl.join)."
        return _build('txl.join', [lhs, rhs], [result], {}, [])

    @staticmethod
    def lane_id(*, result):
        "lane index in the warp (tid % 32)."
        return _build('txl.lane_id', [], [result], {}, [])

    @staticmethod
    def load(ptr, mask=None, other=None, *, result, cache=None, evict=None, isVolatile=None):
        "load through a pointer or a tile of pointers, with mask and other."
        return _build('txl.load', [ptr, mask, other], [result], {'cache': cache, 'evict': evict, 'isVolatile': isVolatile}, [])

    @staticmethod
    def make_block_ptr(base, shape, strides, offsets, *, result):
        "a pointer to a block of a parent tensor (tl.make_block_ptr)."
        return _build('txl.make_block_ptr', [base, shape, strides, offsets], [result], {}, [])

    @staticmethod
    def make_range(*, result, start, end):
        "the tile [start, start+1, ..., end-1] (tl.arange)."
        return _build('txl.make_range', [], [result], {'start': start, 'end': end}, [])

    @staticmethod
    def make_tensor_descriptor(base, shape, strides, scratch=None, *, result, nan_fill=None):
        "build a TMA descriptor on the device (tl.make_tensor_descriptor)."
        return _build('txl.make_tensor_descriptor', [base, shape, strides, scratch], [result], {'nan_fill': nan_fill}, [])

    @staticmethod
    def mbar_alloc(*, result, arriveCount):
        "allocate an array of mbarriers with an arrival count."
        return _build('txl.mbar_alloc', [], [result], {'arriveCount': arriveCount}, [])

    @staticmethod
    def mbar_arrive(mbar, pred=None, remoteCtaId=None, *, track_async_op=None, tx_count=None):
        "arrive on an mbarrier (plain, tracking cp.async, with tx bytes, or remote)."
        return _build('txl.mbar_arrive', [mbar, pred, remoteCtaId], [], {'track_async_op': track_async_op, 'tx_count': tx_count}, [])

    @staticmethod
    def mbar_expect(mbar, pred=None, *, bytes):
        "arrive on an mbarrier and announce the bytes TMA will deliver."
        return _build('txl.mbar_expect', [mbar, pred], [], {'bytes': bytes}, [])

    @staticmethod
    def mbar_wait(mbar, phase):
        "wait until an mbarrier completes the phase with parity `phase`."
        return _build('txl.mbar_wait', [mbar, phase], [], {}, [])

    @staticmethod
    def num_programs(*, result, axis):
        "grid size along `axis` (0..2) (tl.num_programs)."
        return _build('txl.num_programs', [], [result], {'axis': axis}, [])

    @staticmethod
    def print(args, *, prefix, hex=None):
        "device printf of a prefix and values."
        return _build('txl.print', [args], [], {'prefix': prefix, 'hex': hex}, [])

    @staticmethod
    def program_id(*, result, axis):
        "block index along `axis` (0..2) (tl.program_id)."
        return _build('txl.program_id', [], [result], {'axis': axis}, [])

    @staticmethod
    def ptr_to_int(src, *, result):
        "pointers as int64 addresses (tl.cast of a pointer to int64)."
        return _build('txl.ptr_to_int', [src], [result], {}, [])

    @staticmethod
    def reduce(srcs, scratch=None, *, results, axis, combineOp):
        "reduce tiles along `axis` with a combiner region."
        return _build('txl.reduce', [srcs, scratch], [results], {'axis': axis}, [combineOp])

    @staticmethod
    def reduce_return(results):
        "yield the combined values of a txl.reduce or txl.scan region."
        return _build('txl.reduce_return', [results], [], {}, [])

    @staticmethod
    def reg_alloc(*, regCount):
        "raise this warpgroup's register budget (setmaxnreg.inc)."
        return _build('txl.reg_alloc', [], [], {'regCount': regCount}, [])

    @staticmethod
    def reg_dealloc(*, regCount):
        "lower this warpgroup's register budget (setmaxnreg.dec)."
        return _build('txl.reg_dealloc', [], [], {'regCount': regCount}, [])

    @staticmethod
    def relayout(src, scratch=None, *, result):
        "move a tile to another register layout."
        return _build('txl.relayout', [src, scratch], [result], {}, [])

    @staticmethod
    def reshape(src, *, result):
        "a tile with another shape, elements in the same row-major order (tl.reshape)."
        return _build('txl.reshape', [src], [result], {}, [])

    @staticmethod
    def scan(srcs, scratch=None, *, results, axis, reverse=None, combineOp):
        "inclusive prefix scan of tiles along `axis` with a combiner region."
        return _build('txl.scan', [srcs, scratch], [results], {'axis': axis, 'reverse': reverse}, [combineOp])

    @staticmethod
    def slot_load(src, other=None, pred=None, *, result, laneBases, warpBases, ctaId=None):
        "load into each thread the element of a view its lane and warp pick."
        return _build('txl.slot_load', [src, other, pred], [result], {'laneBases': laneBases, 'warpBases': warpBases, 'ctaId': ctaId}, [])

    @staticmethod
    def slot_store(value, dst, mbar=None, pred=None, *, laneBases, warpBases, ctaId=None):
        "store each thread's scalar into the element of a view its lane and warp pick."
        return _build('txl.slot_store', [value, dst, mbar, pred], [], {'laneBases': laneBases, 'warpBases': warpBases, 'ctaId': ctaId}, [])

    @staticmethod
    def smem_alloc(*, result, mutable_=None):
        "allocate a multi-stage shared-memory buffer."
        return _build('txl.smem_alloc', [], [result], {'mutable_': mutable_}, [])

    @staticmethod
    def smem_index(src, index, *, result):
        "index the leading dimension of a shared-memory view."
        return _build('txl.smem_index', [src, index], [result], {}, [])

    @staticmethod
    def smem_load(src, *, result, ctaId=None):
        "load a shared-memory tile into registers."
        return _build('txl.smem_load', [src], [result], {'ctaId': ctaId}, [])

    @staticmethod
    def smem_reshape(src, *, result):
        "a reshaped view of a shared-memory tile."
        return _build('txl.smem_reshape', [src], [result], {}, [])

    @staticmethod
    def smem_store(value, dst, *, ctaId=None):
        "store a register tile into shared memory."
        return _build('txl.smem_store', [value, dst], [], {'ctaId': ctaId}, [])

    @staticmethod
    def smem_subslice(src, *, result, offsets):
        "a rectangular part of a shared-memory view (TXL's smem_slice)."
        return _build('txl.smem_subslice', [src], [result], {'offsets': offsets}, [])

    @staticmethod
    def smem_trans(src, *, result, order):
        "a transposed view of a shared-memory tile (no data moves)."
        return _build('txl.smem_trans', [src], [result], {'order': order}, [])

    @staticmethod
    def sort(src, scratch=None, *, result, axis, descending=None):
        "sort a tile along `axis` (tl.sort)."
        return _build('txl.sort', [src, scratch], [result], {'axis': axis, 'descending': descending}, [])

    @staticmethod
    def splat(src, *, result):
        "a tile with every element equal to a scalar (tl.full)."
        return _build('txl.splat', [src], [result], {}, [])

    @staticmethod
    def split(src, *, outLHS, outRHS):
        "the two halves of a tile's last dimension of size 2 (tl.split)."
        return _build('txl.split', [src], [outLHS, outRHS], {}, [])

    @staticmethod
    def store(ptr, value, mask=None, *, cache=None, evict=None):
        "store through a pointer or a tile of pointers, with a mask."
        return _build('txl.store', [ptr, value, mask], [], {'cache': cache, 'evict': evict}, [])

    @staticmethod
    def tid(*, result):
        "thread index in the block (threadIdx.x)."
        return _build('txl.tid', [], [result], {}, [])

    @staticmethod
    def tma_gather(desc, x_offsets, y_offset, dst, mbar):
        "TMA row gather (gather4, sm_100a)."
        return _build('txl.tma_gather', [desc, x_offsets, y_offset, dst, mbar], [], {}, [])

    @staticmethod
    def tma_load(desc, indices, dst, mbar, *, cache=None, evict=None):
        "TMA tile load from global into shared memory, signalling an mbarrier."
        return _build('txl.tma_load', [desc, indices, dst, mbar], [], {'cache': cache, 'evict': evict}, [])

    @staticmethod
    def tma_store(src, desc, indices, *, reduce=None):
        "TMA tile store from shared into global memory."
        return _build('txl.tma_store', [src, desc, indices], [], {'reduce': reduce}, [])

    @staticmethod
    def tma_store_wait(*, pendings):
        "wait until at most `pendings` TMA store groups still read shared memory."
        return _build('txl.tma_store_wait', [], [], {'pendings': pendings}, [])

    @staticmethod
    def tmem_alloc(*, result, mutable_=None):
        "allocate a multi-stage tensor-memory buffer (sm_100a)."
        return _build('txl.tmem_alloc', [], [result], {'mutable_': mutable_}, [])

    @staticmethod
    def tmem_load(src, *, result, ctaId=None):
        "load a tensor-memory tile into registers (tcgen05.ld)."
        return _build('txl.tmem_load', [src], [result], {'ctaId': ctaId}, [])

    @staticmethod
    def tmem_store(value, dst, *, ctaId=None):
        "store a register tile into tensor memory (tcgen05.st)."
        return _build('txl.tmem_store', [value, dst], [], {'ctaId': ctaId}, [])

    @staticmethod
    def trans(src, *, result, order):
        "permute the dimensions of a tile (tl.trans, tl.permute, x.T)."
        return _build('txl.trans', [src], [result], {'order': order}, [])

    @staticmethod
    def warp_id(*, result):
        "warp index in the block (tid / 32, warp-uniform)."
        return _build('txl.warp_id', [], [result], {}, [])

    @staticmethod
    def warp_reduce(srcs, *, results, combineOp):
        "per-warp partial reduction (TXL's warp_max / warp_sum)."
        return _build('txl.warp_reduce', [srcs], [results], {}, [combineOp])

    @staticmethod
    def warpgroup_id(*, result):
        "warpgroup index in the block (tid / 128, warp-uniform)."
        return _build('txl.warpgroup_id', [], [result], {}, [])


class arith:
    """The arith dialect (mlir/Dialect/Arith/IR/ArithOps.td, upstream MLIR)."""

    @staticmethod
    def addf(lhs, rhs, *, result, fastmath=None):
        "floating point addition operation."
        return _build('arith.addf', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def addi(lhs, rhs, *, result, overflowFlags=None):
        "integer addition operation."
        return _build('arith.addi', [lhs, rhs], [result], {'overflowFlags': overflowFlags}, [])

    @staticmethod
    def addui_extended(lhs, rhs, *, sum, overflow):
        "extended unsigned integer addition operation returning sum and overflow bit."
        return _build('arith.addui_extended', [lhs, rhs], [sum, overflow], {}, [])

    @staticmethod
    def andi(lhs, rhs, *, result):
        "integer binary and."
        return _build('arith.andi', [lhs, rhs], [result], {}, [])

    @staticmethod
    def bitcast(in_, *, out):
        "bitcast between values of equal bit width."
        return _build('arith.bitcast', [in_], [out], {}, [])

    @staticmethod
    def ceildivsi(lhs, rhs, *, result):
        "signed ceil integer division operation."
        return _build('arith.ceildivsi', [lhs, rhs], [result], {}, [])

    @staticmethod
    def ceildivui(lhs, rhs, *, result):
        "unsigned ceil integer division operation."
        return _build('arith.ceildivui', [lhs, rhs], [result], {}, [])

    @staticmethod
    def cmpf(lhs, rhs, *, result, predicate, fastmath=None):
        "floating-point comparison operation."
        return _build('arith.cmpf', [lhs, rhs], [result], {'predicate': predicate, 'fastmath': fastmath}, [])

    @staticmethod
    def cmpi(lhs, rhs, *, result, predicate):
        "integer comparison operation."
        return _build('arith.cmpi', [lhs, rhs], [result], {'predicate': predicate}, [])

    @staticmethod
    def constant(*, result, value):
        "integer or floating point constant."
        return _build('arith.constant', [], [result], {'value': value}, [])

    @staticmethod
    def divf(lhs, rhs, *, result, fastmath=None):
        "floating point division operation."
        return _build('arith.divf', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def divsi(lhs, rhs, *, result, isExact=None):
        "signed integer division operation."
        return _build('arith.divsi', [lhs, rhs], [result], {'isExact': isExact}, [])

    @staticmethod
    def divui(lhs, rhs, *, result, isExact=None):
        "unsigned integer division operation."
        return _build('arith.divui', [lhs, rhs], [result], {'isExact': isExact}, [])

    @staticmethod
    def extf(in_, *, out, fastmath=None):
        "cast from floating-point to wider floating-point."
        return _build('arith.extf', [in_], [out], {'fastmath': fastmath}, [])

    @staticmethod
    def extsi(in_, *, out):
        "integer sign extension operation."
        return _build('arith.extsi', [in_], [out], {}, [])

    @staticmethod
    def extui(in_, *, out):
        "integer zero extension operation."
        return _build('arith.extui', [in_], [out], {}, [])

    @staticmethod
    def floordivsi(lhs, rhs, *, result):
        "signed floor integer division operation."
        return _build('arith.floordivsi', [lhs, rhs], [result], {}, [])

    @staticmethod
    def fptosi(in_, *, out):
        "cast from floating-point type to integer type."
        return _build('arith.fptosi', [in_], [out], {}, [])

    @staticmethod
    def fptoui(in_, *, out):
        "cast from floating-point type to integer type."
        return _build('arith.fptoui', [in_], [out], {}, [])

    @staticmethod
    def index_cast(in_, *, out):
        "cast between index and integer types."
        return _build('arith.index_cast', [in_], [out], {}, [])

    @staticmethod
    def index_castui(in_, *, out):
        "unsigned cast between index and integer types."
        return _build('arith.index_castui', [in_], [out], {}, [])

    @staticmethod
    def maximumf(lhs, rhs, *, result, fastmath=None):
        "floating-point maximum operation."
        return _build('arith.maximumf', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def maxnumf(lhs, rhs, *, result, fastmath=None):
        "floating-point maximum operation."
        return _build('arith.maxnumf', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def maxsi(lhs, rhs, *, result):
        "signed integer maximum operation."
        return _build('arith.maxsi', [lhs, rhs], [result], {}, [])

    @staticmethod
    def maxui(lhs, rhs, *, result):
        "unsigned integer maximum operation."
        return _build('arith.maxui', [lhs, rhs], [result], {}, [])

    @staticmethod
    def minimumf(lhs, rhs, *, result, fastmath=None):
        "floating-point minimum operation."
        return _build('arith.minimumf', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def minnumf(lhs, rhs, *, result, fastmath=None):
        "floating-point minimum operation."
        return _build('arith.minnumf', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def minsi(lhs, rhs, *, result):
        "signed integer minimum operation."
        return _build('arith.minsi', [lhs, rhs], [result], {}, [])

    @staticmethod
    def minui(lhs, rhs, *, result):
        "unsigned integer minimum operation."
        return _build('arith.minui', [lhs, rhs], [result], {}, [])

    @staticmethod
    def mulf(lhs, rhs, *, result, fastmath=None):
        "floating point multiplication operation."
        return _build('arith.mulf', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def muli(lhs, rhs, *, result, overflowFlags=None):
        "Integer multiplication operation."
        return _build('arith.muli', [lhs, rhs], [result], {'overflowFlags': overflowFlags}, [])

    @staticmethod
    def mulsi_extended(lhs, rhs, *, low, high):
        "extended signed integer multiplication operation."
        return _build('arith.mulsi_extended', [lhs, rhs], [low, high], {}, [])

    @staticmethod
    def mului_extended(lhs, rhs, *, low, high):
        "extended unsigned integer multiplication operation."
        return _build('arith.mului_extended', [lhs, rhs], [low, high], {}, [])

    @staticmethod
    def negf(operand, *, result, fastmath=None):
        "floating point negation."
        return _build('arith.negf', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def ori(lhs, rhs, *, result):
        "integer binary or."
        return _build('arith.ori', [lhs, rhs], [result], {}, [])

    @staticmethod
    def remf(lhs, rhs, *, result, fastmath=None):
        "floating point division remainder operation."
        return _build('arith.remf', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def remsi(lhs, rhs, *, result):
        "signed integer division remainder operation."
        return _build('arith.remsi', [lhs, rhs], [result], {}, [])

    @staticmethod
    def remui(lhs, rhs, *, result):
        "unsigned integer division remainder operation."
        return _build('arith.remui', [lhs, rhs], [result], {}, [])

    @staticmethod
    def scaling_extf(in_, scale, *, out, fastmath=None):
        "Upcasts input floats using provided scales values following OCP MXFP Spec."
        return _build('arith.scaling_extf', [in_, scale], [out], {'fastmath': fastmath}, [])

    @staticmethod
    def scaling_truncf(in_, scale, *, out, roundingmode=None, fastmath=None):
        "Downcasts input floating point values using provided scales values following OCP MXFP Spec."
        return _build('arith.scaling_truncf', [in_, scale], [out], {'roundingmode': roundingmode, 'fastmath': fastmath}, [])

    @staticmethod
    def select(condition, true_value, false_value, *, result):
        "select operation."
        return _build('arith.select', [condition, true_value, false_value], [result], {}, [])

    @staticmethod
    def shli(lhs, rhs, *, result, overflowFlags=None):
        "integer left-shift."
        return _build('arith.shli', [lhs, rhs], [result], {'overflowFlags': overflowFlags}, [])

    @staticmethod
    def shrsi(lhs, rhs, *, result, isExact=None):
        "signed integer right-shift."
        return _build('arith.shrsi', [lhs, rhs], [result], {'isExact': isExact}, [])

    @staticmethod
    def shrui(lhs, rhs, *, result, isExact=None):
        "unsigned integer right-shift."
        return _build('arith.shrui', [lhs, rhs], [result], {'isExact': isExact}, [])

    @staticmethod
    def sitofp(in_, *, out):
        "cast from integer type to floating-point."
        return _build('arith.sitofp', [in_], [out], {}, [])

    @staticmethod
    def subf(lhs, rhs, *, result, fastmath=None):
        "floating point subtraction operation."
        return _build('arith.subf', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def subi(lhs, rhs, *, result, overflowFlags=None):
        "Integer subtraction operation."
        return _build('arith.subi', [lhs, rhs], [result], {'overflowFlags': overflowFlags}, [])

    @staticmethod
    def truncf(in_, *, out, roundingmode=None, fastmath=None):
        "cast from floating-point to narrower floating-point."
        return _build('arith.truncf', [in_], [out], {'roundingmode': roundingmode, 'fastmath': fastmath}, [])

    @staticmethod
    def trunci(in_, *, out, overflowFlags=None):
        "integer truncation operation."
        return _build('arith.trunci', [in_], [out], {'overflowFlags': overflowFlags}, [])

    @staticmethod
    def uitofp(in_, *, out):
        "cast from unsigned integer type to floating-point."
        return _build('arith.uitofp', [in_], [out], {}, [])

    @staticmethod
    def xori(lhs, rhs, *, result):
        "integer binary xor."
        return _build('arith.xori', [lhs, rhs], [result], {}, [])


class math:
    """The math dialect (mlir/Dialect/Math/IR/MathOps.td, upstream MLIR)."""

    @staticmethod
    def absf(operand, *, result, fastmath=None):
        "floating point absolute-value operation."
        return _build('math.absf', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def absi(operand, *, result):
        "integer absolute-value operation."
        return _build('math.absi', [operand], [result], {}, [])

    @staticmethod
    def acos(operand, *, result, fastmath=None):
        "arcus cosine of the specified value."
        return _build('math.acos', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def acosh(operand, *, result, fastmath=None):
        "Hyperbolic arcus cosine of the given value."
        return _build('math.acosh', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def asin(operand, *, result, fastmath=None):
        "arcus sine of the given value."
        return _build('math.asin', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def asinh(operand, *, result, fastmath=None):
        "hyperbolic arcus sine of the given value."
        return _build('math.asinh', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def atan(operand, *, result, fastmath=None):
        "arcus tangent of the given value."
        return _build('math.atan', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def atan2(lhs, rhs, *, result, fastmath=None):
        "2-argument arcus tangent of the given values."
        return _build('math.atan2', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def atanh(operand, *, result, fastmath=None):
        "hyperbolic arcus tangent of the given value."
        return _build('math.atanh', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def cbrt(operand, *, result, fastmath=None):
        "cube root of the specified value."
        return _build('math.cbrt', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def ceil(operand, *, result, fastmath=None):
        "ceiling of the specified value."
        return _build('math.ceil', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def clampf(value, min, max, *, result, fastmath=None):
        "floating point clamping operation."
        return _build('math.clampf', [value, min, max], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def copysign(lhs, rhs, *, result, fastmath=None):
        "A copysign operation."
        return _build('math.copysign', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def cos(operand, *, result, fastmath=None):
        "cosine of the specified value."
        return _build('math.cos', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def cosh(operand, *, result, fastmath=None):
        "hyperbolic cosine of the specified value."
        return _build('math.cosh', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def ctlz(operand, *, result):
        "counts the leading zeros an integer value."
        return _build('math.ctlz', [operand], [result], {}, [])

    @staticmethod
    def ctpop(operand, *, result):
        "counts the number of set bits of an integer value."
        return _build('math.ctpop', [operand], [result], {}, [])

    @staticmethod
    def cttz(operand, *, result):
        "counts the trailing zeros an integer value."
        return _build('math.cttz', [operand], [result], {}, [])

    @staticmethod
    def erf(operand, *, result, fastmath=None):
        "error function of the specified value."
        return _build('math.erf', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def erfc(operand, *, result, fastmath=None):
        "complementary error function of the specified value."
        return _build('math.erfc', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def exp(operand, *, result, fastmath=None):
        "base-e exponential of the specified value."
        return _build('math.exp', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def exp2(operand, *, result, fastmath=None):
        "base-2 exponential of the specified value."
        return _build('math.exp2', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def expm1(operand, *, result, fastmath=None):
        "base-e exponential of the specified value minus 1."
        return _build('math.expm1', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def floor(operand, *, result, fastmath=None):
        "floor of the specified value."
        return _build('math.floor', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def fma(a, b, c, *, result, fastmath=None):
        "floating point fused multipy-add operation."
        return _build('math.fma', [a, b, c], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def fpowi(lhs, rhs, *, result, fastmath=None):
        "floating point raised to the signed integer power."
        return _build('math.fpowi', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def ipowi(lhs, rhs, *, result):
        "signed integer raised to the power of operation."
        return _build('math.ipowi', [lhs, rhs], [result], {}, [])

    @staticmethod
    def isfinite(operand, *, result, fastmath=None):
        "returns true if the operand classifies as finite."
        return _build('math.isfinite', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def isinf(operand, *, result, fastmath=None):
        "returns true if the operand classifies as infinite."
        return _build('math.isinf', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def isnan(operand, *, result, fastmath=None):
        "returns true if the operand classifies as NaN."
        return _build('math.isnan', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def isnormal(operand, *, result, fastmath=None):
        "returns true if the operand classifies as normal."
        return _build('math.isnormal', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def log(operand, *, result, fastmath=None):
        "base-e logarithm of the specified value."
        return _build('math.log', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def log10(operand, *, result, fastmath=None):
        "base-10 logarithm of the specified value."
        return _build('math.log10', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def log1p(operand, *, result, fastmath=None):
        "Computes the natural logarithm of one plus the given value."
        return _build('math.log1p', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def log2(operand, *, result, fastmath=None):
        "base-2 logarithm of the specified value."
        return _build('math.log2', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def powf(lhs, rhs, *, result, fastmath=None):
        "floating point raised to the power of operation."
        return _build('math.powf', [lhs, rhs], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def round(operand, *, result, fastmath=None):
        "round of the specified value."
        return _build('math.round', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def roundeven(operand, *, result, fastmath=None):
        "round of the specified value with halfway cases to even."
        return _build('math.roundeven', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def rsqrt(operand, *, result, fastmath=None):
        "reciprocal of sqrt (1 / sqrt of the specified value)."
        return _build('math.rsqrt', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def sin(operand, *, result, fastmath=None):
        "sine of the specified value."
        return _build('math.sin', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def sincos(operand, *, sin, cos, fastmath=None):
        "sine and cosine of the specified value."
        return _build('math.sincos', [operand], [sin, cos], {'fastmath': fastmath}, [])

    @staticmethod
    def sinh(operand, *, result, fastmath=None):
        "hyperbolic sine of the specified value."
        return _build('math.sinh', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def sqrt(operand, *, result, fastmath=None):
        "sqrt of the specified value."
        return _build('math.sqrt', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def tan(operand, *, result, fastmath=None):
        "tangent of the specified value."
        return _build('math.tan', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def tanh(operand, *, result, fastmath=None):
        "hyperbolic tangent of the specified value."
        return _build('math.tanh', [operand], [result], {'fastmath': fastmath}, [])

    @staticmethod
    def trunc(operand, *, result, fastmath=None):
        "trunc of the specified value."
        return _build('math.trunc', [operand], [result], {'fastmath': fastmath}, [])


class scf:
    """The scf dialect (mlir/Dialect/SCF/IR/SCFOps.td, upstream MLIR)."""

    @staticmethod
    def condition(condition, args):
        "loop continuation condition."
        return _build('scf.condition', [condition, args], [], {}, [])

    @staticmethod
    def execute_region(*, result, no_inline=None, region):
        "operation that executes its region exactly once."
        return _build('scf.execute_region', [], [result], {'no_inline': no_inline}, [region])

    @staticmethod
    def for_(lowerBound, upperBound, step, initArgs, *, results, unsignedCmp=None, region):
        "for operation."
        return _build('scf.for', [lowerBound, upperBound, step, initArgs], [results], {'unsignedCmp': unsignedCmp}, [region])

    @staticmethod
    def forall(dynamicLowerBound, dynamicUpperBound, dynamicStep, outputs, *, results, staticLowerBound, staticUpperBound, staticStep, mapping=None, region):
        "evaluate a block multiple times in parallel."
        return _build('scf.forall', [dynamicLowerBound, dynamicUpperBound, dynamicStep, outputs], [results], {'staticLowerBound': staticLowerBound, 'staticUpperBound': staticUpperBound, 'staticStep': staticStep, 'mapping': mapping}, [region])

    @staticmethod
    def forall_in_parallel(*, region):
        "terminates a `forall` block."
        return _build('scf.forall.in_parallel', [], [], {}, [region])

    @staticmethod
    def if_(condition, *, results, thenRegion, elseRegion):
        "if-then-else operation."
        return _build('scf.if', [condition], [results], {}, [thenRegion, elseRegion])

    @staticmethod
    def index_switch(arg, *, results, cases, defaultRegion, caseRegions):
        "switch-case operation on an index argument."
        return _build('scf.index_switch', [arg], [results], {'cases': cases}, [defaultRegion, caseRegions])

    @staticmethod
    def parallel(lowerBound, upperBound, step, initVals, *, results, region):
        "parallel for operation."
        return _build('scf.parallel', [lowerBound, upperBound, step, initVals], [results], {}, [region])

    @staticmethod
    def reduce(operands, *, reductions):
        "reduce operation for scf.parallel."
        return _build('scf.reduce', [operands], [], {}, [reductions])

    @staticmethod
    def reduce_return(result):
        "terminator for reduce operation."
        return _build('scf.reduce.return', [result], [], {}, [])

    @staticmethod
    def while_(inits, *, results, before, after):
        "a generic 'while' loop."
        return _build('scf.while', [inits], [results], {}, [before, after])

    @staticmethod
    def yield_(results):
        "loop yield and termination operation."
        return _build('scf.yield', [results], [], {}, [])


class func:
    """The func dialect (mlir/Dialect/Func/IR/FuncOps.td, upstream MLIR)."""

    @staticmethod
    def call(operands, *, result, callee, arg_attrs=None, res_attrs=None, no_inline=None):
        "call operation."
        return _build('func.call', [operands], [result], {'callee': callee, 'arg_attrs': arg_attrs, 'res_attrs': res_attrs, 'no_inline': no_inline}, [])

    @staticmethod
    def call_indirect(callee, callee_operands, *, results, arg_attrs=None, res_attrs=None):
        "indirect call operation."
        return _build('func.call_indirect', [callee, callee_operands], [results], {'arg_attrs': arg_attrs, 'res_attrs': res_attrs}, [])

    @staticmethod
    def constant(*, result, value):
        "constant."
        return _build('func.constant', [], [result], {'value': value}, [])

    @staticmethod
    def func(*, sym_name, function_type, sym_visibility=None, arg_attrs=None, res_attrs=None, no_inline=None, body):
        "An operation with a name containing a single `SSACFG` region."
        return _build('func.func', [], [], {'sym_name': sym_name, 'function_type': function_type, 'sym_visibility': sym_visibility, 'arg_attrs': arg_attrs, 'res_attrs': res_attrs, 'no_inline': no_inline}, [body])

    @staticmethod
    def return_(operands):
        "Function return operation."
        return _build('func.return', [operands], [], {}, [])


class builtin:
    """The builtin dialect (mlir/IR/BuiltinOps.td, upstream MLIR)."""

    @staticmethod
    def module(*, sym_name=None, sym_visibility=None, bodyRegion):
        "A top level container operation."
        return _build('builtin.module', [], [], {'sym_name': sym_name, 'sym_visibility': sym_visibility}, [bodyRegion])

    @staticmethod
    def unrealized_conversion_cast(inputs, *, outputs):
        "An unrealized conversion from one set of types to another."
        return _build('builtin.unrealized_conversion_cast', [inputs], [outputs], {}, [])
