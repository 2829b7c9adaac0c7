//! The instruction-set level the searches run at, chosen when the program starts: one portable
//! binary that uses POPCNT, BMI2's `pext` and AVX-512 where the CPU has them.
//!
//! A search is generic over a [`Cpu`] type. Each of its recursive functions keeps its body in an
//! `#[inline(always)]` method and calls itself through `at_level!`, which holds one small wrapper
//! per level compiled with that level's target features: the body, and everything it inlines (move
//! generation, flips, popcounts), is compiled into each wrapper for its level, and a recursive call
//! goes straight to the same wrapper. (Wrapping a closure instead is not enough: LLVM does not
//! reliably inline a recursive closure into a function with more target features.) Entry points pick
//! the level with `with_cpu!`; `OTHELLO_CPU=portable|avx2|avx512` asks for a lower one.

use std::sync::OnceLock;

use crate::square::Square;

/// One instruction-set level: its [`Level`], and the two primitives whose best code differs by
/// level beyond what the compiler derives from the same source.
///
/// # Safety
/// An implementation for a level must only be used on a CPU that has the level's features; the
/// types here are only chosen by `with_cpu!`, after [`Level::current`] has checked.
pub unsafe trait Cpu: Copy + 'static {
    const LEVEL: Level;

    /// The bits of `value` under `mask`, packed together in mask order (BMI2's `pext`).
    fn extract(value: u64, mask: u64) -> u64;

    /// The discs `player` flips by moving to `square` (see [`crate::movegen::flips`]).
    fn flips(player: u64, opponent: u64, square: Square) -> u64;

    /// Adds each of `vector`'s numbers, widened, to the one of `sums` in its place (wrapping: the
    /// network's bounds keep its sums within 16 bits). The compiler does it with shuffles and
    /// spills from the plain loop; AVX2 widens and adds 16 at a time.
    #[inline(always)]
    fn add_widened(sums: &mut [i16; 32], vector: &[i8; 32]) {
        add_widened_portable(sums, vector);
    }
}

/// [`Cpu::add_widened`] one number at a time: the portable version and the reference.
#[inline(always)]
pub(crate) fn add_widened_portable(sums: &mut [i16; 32], vector: &[i8; 32]) {
    for (sum, &v) in sums.iter_mut().zip(vector) {
        *sum = sum.wrapping_add(i16::from(v));
    }
}

/// The levels, lowest first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Level {
    /// Any x86-64 (or any other architecture): plain u64 code.
    Portable,
    /// x86-64-v3: AVX2, BMI1, BMI2, LZCNT, POPCNT (Intel since 2013, AMD since 2015).
    Avx2,
    /// x86-64-v3 with AVX-512 F, CD, BW, DQ and VL.
    Avx512,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Portable, Level::Avx2, Level::Avx512];

    pub const fn name(self) -> &'static str {
        match self {
            Level::Portable => "portable",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    /// The best level this CPU supports.
    pub fn detected() -> Level {
        #[cfg(target_arch = "x86_64")]
        {
            let v3 = std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("bmi2")
                && std::arch::is_x86_feature_detected!("lzcnt")
                && std::arch::is_x86_feature_detected!("popcnt");
            let v4 = std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512cd")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && std::arch::is_x86_feature_detected!("avx512vl");
            if v3 && v4 {
                return Level::Avx512;
            }
            if v3 {
                return Level::Avx2;
            }
        }
        Level::Portable
    }

    /// The level the searches use: the detected one, or a lower one asked for in `OTHELLO_CPU`
    /// (a higher one than the CPU has is not used: it would crash). Decided once.
    pub fn current() -> Level {
        static CURRENT: OnceLock<Level> = OnceLock::new();
        *CURRENT.get_or_init(|| {
            let detected = Level::detected();
            let Some(asked) = std::env::var_os("OTHELLO_CPU") else {
                return detected;
            };
            match Level::ALL.into_iter().find(|level| asked == level.name()) {
                Some(level) => level.min(detected),
                None => {
                    eprintln!(
                        "othello: OTHELLO_CPU={} is not one of portable, avx2, avx512; using {}, the best this CPU has",
                        asked.to_string_lossy().escape_debug(),
                        detected.name()
                    );
                    detected
                }
            }
        })
    }
}

/// Evaluates `$body` with the type name `$cpu` bound to the [`Cpu`] of [`Level::current`].
#[doc(hidden)]
#[macro_export]
macro_rules! __with_cpu {
    ($cpu:ident => $body:expr) => {
        match $crate::cpu::Level::current() {
            $crate::cpu::Level::Portable => {
                type $cpu = $crate::cpu::Portable;
                $body
            }
            $crate::cpu::Level::Avx2 => {
                type $cpu = $crate::cpu::Avx2;
                $body
            }
            $crate::cpu::Level::Avx512 => {
                type $cpu = $crate::cpu::Avx512;
                $body
            }
        }
    };
}
pub use crate::__with_cpu as with_cpu;

/// Calls `$body::<Level>(args)` (a method of `$this`, or a plain function) through a wrapper
/// compiled for the level of `$cpu`: the recursive step of a search (see the module's comment).
/// `$body` must be `#[inline(always)]`, so that it is compiled into each wrapper.
#[doc(hidden)]
#[macro_export]
macro_rules! __at_level {
    ($cpu:ty, $this:ident: $Self:ty => $body:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty) => {
        $crate::cpu::at_level!(@wrappers $cpu, (this: &mut $Self, $($arg: $ty),*) -> $ret,
            ($this, $($arg),*), Level => this.$body::<Level>($($arg),*))
    };
    ($cpu:ty => $body:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty) => {
        $crate::cpu::at_level!(@wrappers $cpu, ($($arg: $ty),*) -> $ret,
            ($($arg),*), Level => $body::<Level>($($arg),*))
    };
    (@wrappers $cpu:ty, $params:tt -> $ret:ty, $args:tt, $level:ident => $call:expr) => {{
        fn portable $params -> $ret {
            type $level = $crate::cpu::Portable;
            $call
        }
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
        fn avx2 $params -> $ret {
            type $level = $crate::cpu::Avx2;
            $call
        }
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512cd,avx512bw,avx512dq,avx512vl")]
        fn avx512 $params -> $ret {
            type $level = $crate::cpu::Avx512;
            $call
        }
        match <$cpu as $crate::cpu::Cpu>::LEVEL {
            $crate::cpu::Level::Portable => portable $args,
            // SAFETY: a `Cpu` type is only used on a CPU with its level's features (see `Cpu`).
            #[cfg(target_arch = "x86_64")]
            $crate::cpu::Level::Avx2 => unsafe { avx2 $args },
            #[cfg(target_arch = "x86_64")]
            $crate::cpu::Level::Avx512 => unsafe { avx512 $args },
            #[cfg(not(target_arch = "x86_64"))]
            _ => portable $args,
        }
    }};
}
pub use crate::__at_level as at_level;

/// Plain u64 code, for any CPU.
#[derive(Clone, Copy, Debug)]
pub struct Portable;

// SAFETY: any CPU has the portable level.
unsafe impl Cpu for Portable {
    const LEVEL: Level = Level::Portable;

    #[inline(always)]
    fn extract(value: u64, mask: u64) -> u64 {
        extract_portable(value, mask)
    }

    #[inline(always)]
    fn flips(player: u64, opponent: u64, square: Square) -> u64 {
        crate::movegen::flips(player, opponent, square)
    }
}

/// `pext` one mask bit at a time: the portable version and the reference for the others.
#[inline]
pub(crate) fn extract_portable(value: u64, mut mask: u64) -> u64 {
    let mut packed = 0;
    let mut bit = 1;
    while mask != 0 {
        let lowest = mask & mask.wrapping_neg();
        if value & lowest != 0 {
            packed |= bit;
        }
        bit <<= 1;
        mask &= mask - 1;
    }
    packed
}

/// x86-64-v3 (only ever chosen on a CPU that has it, see [`Level::detected`]).
#[derive(Clone, Copy, Debug)]
pub struct Avx2;

/// x86-64-v3 with AVX-512 (only ever chosen on a CPU that has it).
#[derive(Clone, Copy, Debug)]
pub struct Avx512;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Avx2, Avx512, Cpu, Level};
    use crate::square::Square;
    use std::arch::x86_64::*;

    // SAFETY: only chosen by `with_cpu!` after `Level::current` has found the features.
    unsafe impl Cpu for Avx2 {
        const LEVEL: Level = Level::Avx2;

        #[inline(always)]
        fn extract(value: u64, mask: u64) -> u64 {
            // SAFETY: the level has BMI2 (see `Cpu`).
            unsafe { _pext_u64(value, mask) }
        }

        #[inline(always)]
        fn flips(player: u64, opponent: u64, square: Square) -> u64 {
            // SAFETY: the level has AVX2 (see `Cpu`).
            unsafe { flips_avx2(player, opponent, square) }
        }

        #[inline(always)]
        fn add_widened(sums: &mut [i16; 32], vector: &[i8; 32]) {
            // SAFETY: the level has AVX2 (see `Cpu`).
            unsafe { add_widened_avx2(sums, vector) }
        }
    }

    // SAFETY: only chosen by `with_cpu!` after `Level::current` has found the features.
    unsafe impl Cpu for Avx512 {
        const LEVEL: Level = Level::Avx512;

        #[inline(always)]
        fn extract(value: u64, mask: u64) -> u64 {
            // SAFETY: the level has BMI2 (see `Cpu`).
            unsafe { _pext_u64(value, mask) }
        }

        #[inline(always)]
        fn flips(player: u64, opponent: u64, square: Square) -> u64 {
            // SAFETY: the level has AVX-512 F and CD (see `Cpu`).
            unsafe { flips_avx512(player, opponent, square) }
        }

        #[inline(always)]
        fn add_widened(sums: &mut [i16; 32], vector: &[i8; 32]) {
            // SAFETY: the level has AVX2 (see `Cpu`).
            unsafe { add_widened_avx2(sums, vector) }
        }
    }

    /// [`Cpu::add_widened`] in two halves of 16: one widening and one addition each.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn add_widened_avx2(sums: &mut [i16; 32], vector: &[i8; 32]) {
        // SAFETY: the unaligned loads and stores stay within the two 32-element arrays.
        unsafe {
            let (s, v) = (sums.as_mut_ptr(), vector.as_ptr());
            let low = _mm256_cvtepi8_epi16(_mm_loadu_si128(v.cast()));
            let high = _mm256_cvtepi8_epi16(_mm_loadu_si128(v.add(16).cast()));
            let sum_low = _mm256_add_epi16(_mm256_loadu_si256(s.cast()), low);
            let sum_high = _mm256_add_epi16(_mm256_loadu_si256(s.add(16).cast()), high);
            _mm256_storeu_si256(s.cast(), sum_low);
            _mm256_storeu_si256(s.add(16).cast(), sum_high);
        }
    }

    /// `movegen::flips` with the 4 directions towards higher squares in one vector and the 4
    /// towards lower ones in another, by the same rules. AVX2 has no lane-wise leading-zero count:
    /// the first non-opponent square towards lower indices (the highest bit) is found by smearing
    /// the bits downwards, which also gives the squares above it at once.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn flips_avx2(player: u64, opponent: u64, square: Square) -> u64 {
        let rays = &crate::movegen::RAYS[square.index()];
        // SAFETY: each row of RAYS is 8 u64 in a row; the unaligned loads read its two halves.
        let (up, down) = unsafe {
            (
                _mm256_loadu_si256(rays.as_ptr().cast()),
                _mm256_loadu_si256(rays[4..].as_ptr().cast()),
            )
        };
        let opponent = _mm256_set1_epi64x(opponent as i64);
        let player = _mm256_set1_epi64x(player as i64);
        let zero = _mm256_setzero_si256();
        let one = _mm256_set1_epi64x(1);
        // Towards higher indices: the lowest bit of the stops, and the ray below it.
        let stop = _mm256_andnot_si256(opponent, up);
        let first = _mm256_and_si256(stop, _mm256_sub_epi64(zero, stop));
        let open = _mm256_cmpeq_epi64(_mm256_and_si256(first, player), zero);
        let upper = _mm256_andnot_si256(open, _mm256_and_si256(_mm256_sub_epi64(first, one), up));
        // Towards lower indices: every bit up to the highest stop (bit 0 a sentinel, as in
        // `movegen::flips`), its highest bit, and the ray above it.
        let mut below = _mm256_or_si256(_mm256_andnot_si256(opponent, down), one);
        below = _mm256_or_si256(below, _mm256_srli_epi64::<1>(below));
        below = _mm256_or_si256(below, _mm256_srli_epi64::<2>(below));
        below = _mm256_or_si256(below, _mm256_srli_epi64::<4>(below));
        below = _mm256_or_si256(below, _mm256_srli_epi64::<8>(below));
        below = _mm256_or_si256(below, _mm256_srli_epi64::<16>(below));
        below = _mm256_or_si256(below, _mm256_srli_epi64::<32>(below));
        let first = _mm256_xor_si256(below, _mm256_srli_epi64::<1>(below));
        let open = _mm256_cmpeq_epi64(_mm256_and_si256(first, _mm256_and_si256(player, down)), zero);
        let lower = _mm256_andnot_si256(open, _mm256_andnot_si256(below, down));
        let lines = _mm256_or_si256(upper, lower);
        let halves = _mm_or_si128(_mm256_castsi256_si128(lines), _mm256_extracti128_si256::<1>(lines));
        (_mm_cvtsi128_si64(halves) | _mm_extract_epi64::<1>(halves)) as u64
    }

    /// `movegen::flips` with all 8 directions at once, one per 64-bit lane, by the same rules.
    #[target_feature(enable = "avx512f,avx512cd")]
    #[inline]
    fn flips_avx512(player: u64, opponent: u64, square: Square) -> u64 {
        let rays = &crate::movegen::RAYS[square.index()];
        // SAFETY: each row of RAYS is 8 u64 in a row, 64 bytes, which the unaligned load reads.
        let rays = unsafe { _mm512_loadu_si512(rays.as_ptr().cast()) };
        let stop = _mm512_andnot_si512(_mm512_set1_epi64(opponent as i64), rays);
        let zero = _mm512_setzero_si512();
        let lowest = _mm512_and_si512(stop, _mm512_sub_epi64(zero, stop));
        let with_sentinel = _mm512_or_si512(stop, _mm512_set1_epi64(1));
        let highest = _mm512_srlv_epi64(_mm512_set1_epi64(i64::MIN), _mm512_lzcnt_epi64(with_sentinel));
        let first = _mm512_mask_blend_epi64(0xf0, lowest, highest);
        let closes = _mm512_test_epi64_mask(first, _mm512_and_si512(_mm512_set1_epi64(player as i64), rays));
        let below = _mm512_sub_epi64(first, _mm512_set1_epi64(1));
        let above = _mm512_slli_epi64::<1>(_mm512_sub_epi64(zero, first));
        let lines = _mm512_and_si512(_mm512_mask_blend_epi64(0xf0, below, above), rays);
        _mm512_mask_reduce_or_epi64(closes, lines) as u64
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod other {
    //! Elsewhere the x86 levels are never chosen; they run the portable code.
    use super::{Avx2, Avx512, Cpu, Level, Portable};
    use crate::square::Square;

    macro_rules! as_portable {
        ($level:ty) => {
            // SAFETY: they run the portable code.
            unsafe impl Cpu for $level {
                const LEVEL: Level = Level::Portable;
                fn extract(value: u64, mask: u64) -> u64 {
                    Portable::extract(value, mask)
                }
                fn flips(player: u64, opponent: u64, square: Square) -> u64 {
                    Portable::flips(player, opponent, square)
                }
            }
        };
    }
    as_portable!(Avx2);
    as_portable!(Avx512);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// Every level this CPU has agrees with the portable code on random boards.
    fn agrees_with_portable<C: Cpu>() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for i in 0..20_000 {
            // Dense boards, and sparse ones with long lines of one colour or open to the edge.
            let a = xorshift(&mut state);
            let b = xorshift(&mut state) & !a;
            let (a, b) = match i % 3 {
                0 => (a, b),
                1 => (a & xorshift(&mut state) & xorshift(&mut state), b),
                _ => (a & xorshift(&mut state), b | xorshift(&mut state) & !a),
            };
            let mask = xorshift(&mut state);
            assert_eq!(C::extract(a, mask), extract_portable(a, mask));
            for square in Square::all() {
                if (a | b) & square.bitboard().0 == 0 {
                    assert_eq!(C::flips(a, b, square), Portable::flips(a, b, square), "{square}");
                }
            }
            // Sums near the ends of 16 bits too: the additions wrap alike.
            let sums: [i16; 32] = std::array::from_fn(|k| (a >> (k % 4 * 16)) as i16);
            let vector: [i8; 32] = std::array::from_fn(|k| (b >> (k % 8 * 8)) as i8);
            let (mut fast, mut plain) = (sums, sums);
            C::add_widened(&mut fast, &vector);
            add_widened_portable(&mut plain, &vector);
            assert_eq!(fast, plain);
        }
    }

    #[test]
    fn every_level_the_cpu_has_agrees_with_the_portable_code() {
        let detected = Level::detected();
        if detected >= Level::Avx2 {
            agrees_with_portable::<Avx2>();
        }
        if detected >= Level::Avx512 {
            agrees_with_portable::<Avx512>();
        }
        agrees_with_portable::<Portable>();
    }

    #[test]
    fn the_portable_extract_is_pext() {
        assert_eq!(extract_portable(0b1011_0110, 0b1111_0000), 0b1011);
        assert_eq!(extract_portable(0b1011_0110, 0b0101_0101), 0b0110);
        assert_eq!(extract_portable(u64::MAX, 0x8000_0000_0000_0001), 0b11);
    }
}
