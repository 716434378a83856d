(module
  ;; bench/wasm-rows.ts's probe of a WebAssembly rows writer (issue 32), not served code: per row
  ;; '{' + prefix + year + piece a + piece b + amtPrefix + amount + piece c + '}', rows in '[' ']' joined by ','.
  ;; A row's input is 24 bytes: f64 amount, i32 year, i32 a, i32 b, i32 c (piece ids).
  ;; Pieces: a table of (offset, length) i32 pairs; digit pairs "00".."99" at 0 (200 bytes).
  ;; Numbers: non-negative integers only (the probe's rows have no others).
  (memory (export "mem") 256)

  (func $piece (param $table i32) (param $k i32) (param $out i32) (result i32)
    (local $e i32) (local $len i32) (local $src i32) (local $j i32)
    (local.set $e (i32.add (local.get $table) (i32.shl (local.get $k) (i32.const 3))))
    (local.set $len (i32.load offset=4 (local.get $e)))
    (local.set $src (i32.load (local.get $e)))
    ;; eight bytes a step, the last step past the end (the next write overwrites it)
    (block $d (loop $c
      (br_if $d (i32.ge_u (local.get $j) (local.get $len)))
      (i64.store (i32.add (local.get $out) (local.get $j)) (i64.load (i32.add (local.get $src) (local.get $j))))
      (local.set $j (i32.add (local.get $j) (i32.const 8)))
      (br $c)))
    (i32.add (local.get $out) (local.get $len)))

  (func (export "rows") (param $n i32) (param $rows i32) (param $table i32) (param $out i32)
        (param $pre i32) (param $amtPre i32) (result i32)
    (local $i i32) (local $row i32) (local $o i32)
    (local.set $o (local.get $out))
    (i32.store8 (local.get $o) (i32.const 0x5b))
    (local.set $o (i32.add (local.get $o) (i32.const 1)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (local.get $i) (then
          (i32.store8 (local.get $o) (i32.const 0x2c))
          (local.set $o (i32.add (local.get $o) (i32.const 1)))))
        (local.set $row (i32.add (local.get $rows) (i32.mul (local.get $i) (i32.const 24))))
        (i32.store8 (local.get $o) (i32.const 0x7b))
        (local.set $o (i32.add (local.get $o) (i32.const 1)))
        (local.set $o (call $piece (local.get $table) (local.get $pre) (local.get $o)))
        (local.set $o (call $num (i64.extend_i32_u (i32.load offset=8 (local.get $row))) (local.get $o)))
        (local.set $o (call $piece (local.get $table) (i32.load offset=12 (local.get $row)) (local.get $o)))
        (local.set $o (call $piece (local.get $table) (i32.load offset=16 (local.get $row)) (local.get $o)))
        (local.set $o (call $piece (local.get $table) (local.get $amtPre) (local.get $o)))
        (local.set $o (call $num (i64.trunc_f64_s (f64.load (local.get $row))) (local.get $o)))
        (local.set $o (call $piece (local.get $table) (i32.load offset=20 (local.get $row)) (local.get $o)))
        (i32.store8 (local.get $o) (i32.const 0x7d))
        (local.set $o (i32.add (local.get $o) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (i32.store8 (local.get $o) (i32.const 0x5d))
    (i32.add (local.get $o) (i32.const 1)))

  ;; a non-negative integer's digits at out; returns the end
  (func $num (param $x i64) (param $out i32) (result i32)
    (local $len i32) (local $t i64) (local $at i32) (local $q i64) (local $r i32) (local $end i32)
    (local.set $len (i32.const 1))
    (local.set $t (i64.const 10))
    (block $d (loop $c
      (br_if $d (i64.lt_u (local.get $x) (local.get $t)))
      (local.set $t (i64.mul (local.get $t) (i64.const 10)))
      (local.set $len (i32.add (local.get $len) (i32.const 1)))
      (br_if $c (i32.lt_u (local.get $len) (i32.const 19)))))
    (local.set $end (i32.add (local.get $out) (local.get $len)))
    (local.set $at (local.get $end))
    (block $e (loop $two
      (br_if $e (i32.lt_u (local.get $len) (i32.const 2)))
      (local.set $q (i64.div_u (local.get $x) (i64.const 100)))
      (local.set $r (i32.shl (i32.wrap_i64 (i64.sub (local.get $x) (i64.mul (local.get $q) (i64.const 100)))) (i32.const 1)))
      (local.set $at (i32.sub (local.get $at) (i32.const 2)))
      (i32.store16 (local.get $at) (i32.load16_u (local.get $r)))
      (local.set $x (local.get $q))
      (local.set $len (i32.sub (local.get $len) (i32.const 2)))
      (br $two)))
    (if (i32.eq (local.get $len) (i32.const 1))
      (then (i32.store8 (i32.sub (local.get $at) (i32.const 1)) (i32.add (i32.const 48) (i32.wrap_i64 (local.get $x))))))
    (local.get $end))
)
