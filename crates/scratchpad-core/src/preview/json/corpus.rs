//! Documents that probe the JSON shape preview where a parser goes wrong: numbers at the edges of
//! their types, escapes and surrogates, invalid UTF-8, deep and wide nesting, trailing garbage, and
//! the same strings at tracked and untracked positions (which are checked differently). The corpus
//! is deterministic, so its previews can be kept as a snapshot.

/// xorshift64*: the same documents on every run, without a dependency.
#[derive(Debug)]
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// One document of the corpus and the budget it is previewed with.
#[derive(Debug)]
pub(super) struct Case {
    pub doc: Vec<u8>,
    pub budget: usize,
}

/// The whole corpus: hand-written edge cases, generated documents, and generated documents with
/// one byte changed, inserted, or removed (mostly invalid, some not).
pub(super) fn corpus() -> Vec<Case> {
    const BUDGETS: [usize; 4] = [1_500, 300, 10_000, 60];
    let mut docs = edge_cases();
    let mut rng = Rng::new(0x5eed);
    let generated: Vec<Vec<u8>> = (0..160).map(|_| generate(&mut rng)).collect();
    for doc in &generated {
        docs.push(mutate(&mut rng, doc));
        docs.push(mutate(&mut rng, doc));
    }
    docs.extend(generated);
    docs.into_iter()
        .enumerate()
        .map(|(i, doc)| Case {
            doc,
            budget: BUDGETS[i % BUDGETS.len()],
        })
        .collect()
}

/// Hand-written documents: valid and invalid numbers, strings, literals and structure.
pub(super) fn edge_cases() -> Vec<Vec<u8>> {
    let mut docs: Vec<Vec<u8>> = Vec::new();
    let numbers = [
        "0",
        "-0",
        "-0.0",
        "0.0",
        "0e0",
        "0E-0",
        "1.5",
        "-1.5",
        "1e5",
        "1E+5",
        "1e-5",
        "-1.5e-300",
        "2.5e-324",
        "1e-400",
        "1e308",
        "1.7976931348623157e308",
        "1.7976931348623158e308",
        "1.8e308",
        "1e400",
        "-1e400",
        "0e400",
        "0.000000000000000000000000000001e400",
        "1e2147483648",
        "1e-2147483649",
        "123456789012345678",
        "1234567890123456789",
        "12345678901234567890",
        "123456789012345678901234567890",
        "9007199254740993",
        "9007199254740993.0",
        "9007199254740993.5",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775807",
        "-9223372036854775808",
        "-9223372036854775809",
        "-18446744073709551615",
        "-18446744073709551616",
        "0.1",
        "0.30000000000000004",
        "1.00000000000000000000001",
        "0.0000000000000000000001",
        "0.00000000000000000000001",
        "123.456e3",
        "1234567890.0987654321",
        "99999999999999999999999999.9e-10",
        "00",
        "01",
        "-01",
        "-00",
        "-",
        "--1",
        "+1",
        "1.",
        "1.e5",
        ".5",
        "-.5",
        "1e",
        "1e+",
        "1e-",
        "1E5.5",
        "1.5.3",
        "1ee5",
        "1e5e5",
        "1-2",
        "0x10",
        "Infinity",
        "-Infinity",
        "NaN",
        "1 2",
        "1,",
    ];
    for n in numbers {
        docs.push(n.into());
        docs.push(format!("[{n}]").into());
        docs.push(format!(r#"{{"a": {n}, "b": [{n}, 1]}}"#).into());
        // Depth 5: only checked for syntax.
        docs.push(format!("[[[[[{n}]]]]]").into());
        // Depth 4: the value itself is parsed, its items are not.
        docs.push(format!(r#"{{"a":{{"b":{{"c":{{"d":{n}, "e":[{n}]}}}}}}}}"#).into());
    }
    let strings: [&[u8]; 40] = [
        br#""""#,
        br#""a""#,
        br#""\"\\\/\b\f\n\r\t""#,
        br#""\u0041\u00e9\u4e2d\u2028""#,
        br#""\u0000""#,
        br#""\uD83D\uDE00""#,
        br#""\ud83d\ude00 ok""#,
        br#""\uD83D""#,
        br#""\uDE00""#,
        br#""\uD83Dx""#,
        br#""\uD83D\n""#,
        br#""\uD83D\u0041""#,
        br#""\uD83D\uD83D\uDE00""#,
        br#""\uDBFF\uDFFF""#,
        br#""\uD800\uDBFF""#,
        br#""\x""#,
        br#""\u12""#,
        br#""\u12G4""#,
        br#""\U0041""#,
        br#""\'""#,
        b"\"a\tb\"",
        b"\"a\nb\"",
        b"\"a\x1fb\"",
        b"\"a\x7fb\"",
        "\"é中😀\u{2028}\"".as_bytes(),
        b"\"\xff\"",
        b"\"ok\xc3\"",
        b"\"\xc0\x80\"",
        b"\"\xed\xa0\x80\"",
        b"\"\xe2\x82\"",
        b"\"\xf4\x90\x80\x80\"",
        b"\"\xc3\xa9\\u00e9\xc3\"",
        b"\"\xc3\\u00a9\"",
        br#""unterminated"#,
        br#""ends with escape\"#,
        br#""\"#,
        br#"'single'"#,
        b"\"long \\u00e9 string that goes on well beyond the forty characters of a sample, and on\"",
        br#""https://example.com/a/very/long/path/that/shares/its/start/with/others/1""#,
        br#""\/\/\/""#,
    ];
    for s in strings {
        let splice = |before: &str, after: &str| -> Vec<u8> {
            let mut doc = before.as_bytes().to_vec();
            doc.extend_from_slice(s);
            doc.extend_from_slice(after.as_bytes());
            doc
        };
        docs.push(s.to_vec());
        docs.push(splice("[", "]"));
        docs.push(splice(r#"{"a": "#, r#", "b": 1}"#));
        // As a key, tracked and at depth 4 (where keys are still read as strings).
        docs.push(splice("{", ": 1}"));
        docs.push(splice(r#"{"a":{"b":{"c":{"d":{"#, ": 1}}}}}"));
        // Depth 5 and the value of an untracked (21st) key: only checked for syntax.
        docs.push(splice("[[[[[", "]]]]]"));
        docs.push(splice(r#"[[[[{"#, ": 1}]]]]"));
        let mut wide = String::from("{");
        for k in 0..20 {
            wide.push_str(&format!(r#""k{k}": {k}, "#));
        }
        wide.push_str(r#""late": "#);
        docs.push(splice(&wide, "}"));
    }
    let structure = [
        "",
        " ",
        "\n\t\r ",
        "[]",
        "{}",
        "[[]]",
        "[{}]",
        "[{}, {}, []]",
        r#"{"a": []}"#,
        r#"{"a": {}}"#,
        " [ 1 , 2 ] ",
        "\t{\r\n\"a\"\t:\n1\r}\n",
        "[1 2]",
        "[1,,2]",
        "[,1]",
        "[1,]",
        "[",
        "]",
        "[1",
        "[1,",
        "{",
        "}",
        r#"{"a"}"#,
        r#"{"a":}"#,
        r#"{"a" 1}"#,
        r#"{"a":1 "b":2}"#,
        r#"{"a":1,}"#,
        r#"{,}"#,
        r#"{1:2}"#,
        r#"{a:1}"#,
        r#"{"a":1"#,
        r#"{"a":1,"#,
        r#"{"a""#,
        "[}",
        "{]",
        r#"[{"a":1]}"#,
        r#"{"a":[1}"#,
        r#"{"a":1}}"#,
        "[1]]",
        "[] []",
        "{} x",
        "null,",
        "null",
        "true",
        "false",
        "nul",
        "nulll",
        "True",
        "tru e",
        "[true, false, null]",
        "[nul]",
        "[[[[[nul]]]]]",
        "[[[[[tru]]]]]",
        "[[[[[1,]]]]]",
        "[[[[[{]]]]]",
        "[[[[[{\"a\" 1}]]]]]",
        "[[[[[{\"a\":1,}]]]]]",
        "[[[[[{1:1}]]]]]",
        "\u{a0}[]",
        "\x0c[]",
        "[]\x0c",
        "\u{feff}[]",
        "[]\u{0}",
        r#"{"a":1,"a":2,"a":"x"}"#,
        r#"[{"id":1},{"id":"x"},{"id":null},{"id":[1]},{"id":{}},{"id":true}]"#,
        r#"[1, "a", null, true, [], {}, 1.5, -1]"#,
        r#"{"status":"ok","items":[{"status":"ok"},{"status":"failed"},{"status":"ok"}]}"#,
    ];
    for doc in structure {
        docs.push(doc.into());
    }
    // Deep nesting: past serde_json's recursion limit of 128, and far past it.
    for depth in [4, 5, 6, 127, 128, 129, 10_000] {
        docs.push(format!("{}{}", "[".repeat(depth), "]".repeat(depth)).into());
        docs.push(format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth)).into());
        docs.push(format!("{}{}", "[".repeat(depth), "]".repeat(depth - 1)).into());
        docs.push(format!("{}1{}", r#"[{"a":"#.repeat(depth), "}]".repeat(depth)).into());
    }
    // Wide: more keys than are tracked, merged over array items.
    let mut wide = String::from("[");
    for i in 0..40 {
        if i > 0 {
            wide.push(',');
        }
        wide.push_str(&format!(
            r#"{{"common": {i}, "u{i}": "v{i}", "n": {{"x{}": 1}}}}"#,
            i % 25
        ));
    }
    wide.push(']');
    docs.push(wide.into());
    docs
}

/// Size past which a generated document gets no more containers (bytes).
const MAX_GENERATED_BYTES: usize = 12_000;

/// A random document: nested values of every type, keys that repeat (so that arrays of objects
/// merge), numbers and strings of every form, random whitespace; now and then a lone surrogate,
/// invalid UTF-8, or an out-of-range number, which are errors only where values are read.
pub(super) fn generate(rng: &mut Rng) -> Vec<u8> {
    let mut generator = Generator {
        shape: Rng::new(rng.next()),
        values: Rng::new(rng.next()),
        out: Vec::new(),
    };
    let depth = 1 + rng.below(7);
    // Most documents worth a shape preview are containers.
    let root = if rng.chance(85) {
        Some(rng.chance(50))
    } else {
        None
    };
    generator.value(depth, root);
    generator.whitespace();
    generator.out
}

/// Draws the structure (types, lengths, keys) and the scalars from separate generators, so that
/// the items of an array can share a structure and differ in their values, as real ones do.
struct Generator {
    shape: Rng,
    values: Rng,
    out: Vec<u8>,
}

impl Generator {
    fn whitespace(&mut self) {
        let choices: [&[u8]; 6] = [b"", b"", b"", b" ", b"\n  ", b"\t\r\n"];
        self.out.extend_from_slice(self.values.pick(&choices));
    }

    /// A value of the given depth; `array` asks for an array (`Some(true)`) or an object.
    fn value(&mut self, depth: usize, array: Option<bool>) {
        self.whitespace();
        // Scalars only once the document is large enough.
        let depth = if self.out.len() > MAX_GENERATED_BYTES {
            0
        } else {
            depth
        };
        let kind = match array {
            Some(true) if depth > 0 => 4,
            Some(_) if depth > 0 => 5,
            _ if depth == 0 => self.shape.below(4),
            _ => self.shape.below(7),
        };
        match kind {
            0 => {
                let literal = self.values.pick(&[b"null".as_slice(), b"true", b"false"]);
                self.out.extend_from_slice(literal);
            }
            1 => number(&mut self.values, &mut self.out),
            2 | 3 => string(&mut self.values, &mut self.out),
            4 => self.array(depth),
            _ => self.object(depth),
        }
    }

    fn array(&mut self, depth: usize) {
        self.out.push(b'[');
        let len = if depth <= 3 && self.shape.chance(20) {
            self.shape.below(40)
        } else {
            self.shape.below(5)
        };
        // Items of one or a few structures, as in real arrays, or all different.
        let alike = self.shape.chance(60);
        let seed = self.shape.next();
        for i in 0..len {
            if i > 0 {
                self.whitespace();
                self.out.push(b',');
            }
            if alike {
                let variant = Rng::new(seed.wrapping_add(self.values.below(3) as u64));
                let shape = std::mem::replace(&mut self.shape, variant);
                self.value(depth - 1, None);
                self.shape = shape;
            } else {
                self.value(depth - 1, None);
            }
        }
        self.whitespace();
        self.out.push(b']');
    }

    fn object(&mut self, depth: usize) {
        self.out.push(b'{');
        let len = if depth <= 3 && self.shape.chance(15) {
            self.shape.below(30)
        } else {
            self.shape.below(6)
        };
        for i in 0..len {
            if i > 0 {
                self.out.push(b',');
            }
            self.whitespace();
            key(&mut self.shape, &mut self.out);
            self.whitespace();
            self.out.push(b':');
            self.value(depth - 1, None);
        }
        self.whitespace();
        self.out.push(b'}');
    }
}

fn key(rng: &mut Rng, out: &mut Vec<u8>) {
    const KEYS: [&str; 16] = [
        r#""id""#,
        r#""name""#,
        r#""status""#,
        r#""type""#,
        r#""url""#,
        r#""a""#,
        r#""b""#,
        r#""data""#,
        r#""items""#,
        r#""q\"uote""#,
        r#""\u00e9t\u00e9""#,
        "\"été\"",
        r#""""#,
        r#""kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk1""#,
        r#""kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk2""#,
        r#""\uD83D\uDE00""#,
    ];
    if rng.chance(25) {
        out.extend_from_slice(format!(r#""k{}""#, rng.below(40)).as_bytes());
    } else if rng.chance(3) {
        string(rng, out);
    } else {
        out.extend_from_slice(rng.pick(&KEYS).as_bytes());
    }
}

fn number(rng: &mut Rng, out: &mut Vec<u8>) {
    if rng.chance(10) {
        const ODD: [&str; 12] = [
            "0",
            "-0",
            "-0.0",
            "1e400",
            "-1e-400",
            "18446744073709551616",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "9007199254740993.5",
            "0.1e1",
            "5E-3",
            "1.7976931348623157e308",
        ];
        out.extend_from_slice(rng.pick(&ODD).as_bytes());
        return;
    }
    if rng.chance(30) {
        out.push(b'-');
    }
    let digits = 1 + if rng.chance(10) {
        rng.below(25)
    } else {
        rng.below(6)
    };
    for i in 0..digits {
        let d = if i == 0 && digits > 1 {
            1 + rng.below(9)
        } else {
            rng.below(10)
        };
        out.push(b'0' + d as u8);
    }
    if rng.chance(35) {
        out.push(b'.');
        let frac = 1 + if rng.chance(10) {
            rng.below(25)
        } else {
            rng.below(4)
        };
        for _ in 0..frac {
            out.push(b'0' + rng.below(10) as u8);
        }
    }
    if rng.chance(10) {
        out.push(rng.pick(b"eE"));
        if rng.chance(60) {
            out.push(rng.pick(b"+-"));
        }
        out.extend_from_slice(rng.below(330).to_string().as_bytes());
    }
}

fn string(rng: &mut Rng, out: &mut Vec<u8>) {
    const PIECES: [&[u8]; 28] = [
        b"a",
        b"item-",
        b"Zz",
        b"0",
        b" ",
        b"/",
        b"\\\"",
        b"\\\\",
        b"\\/",
        b"\\n",
        b"\\t",
        b"\\b\\f\\r",
        b"\\u0041",
        b"\\u00e9",
        b"\\u2028",
        b"\\uD83D\\uDE00",
        b"\\u0000",
        "é".as_bytes(),
        "中".as_bytes(),
        "😀".as_bytes(),
        "\u{2028}".as_bytes(),
        b"\x7f",
        b"https://example.com/",
        b"registry+https://github.com/rust-lang/crates.io-index#",
        b"ok",
        b"failed",
        b"pending",
        b".internal.example.com",
    ];
    // Errors where strings are read, fine where they are skipped.
    const RARE: [&[u8]; 4] = [b"\\uD83D", b"\\uDE00x", b"\xff", b"\xc3"];
    out.push(b'"');
    let pieces = if rng.chance(5) {
        rng.below(200)
    } else {
        rng.below(6)
    };
    for _ in 0..pieces {
        if rng.below(400) == 0 {
            out.extend_from_slice(rng.pick(&RARE));
        } else {
            out.extend_from_slice(rng.pick(&PIECES));
        }
    }
    out.push(b'"');
}

/// `doc` with one byte replaced, inserted or removed, cut short, or followed by garbage.
pub(super) fn mutate(rng: &mut Rng, doc: &[u8]) -> Vec<u8> {
    const BYTES: &[u8] = b"\"\\,:[]{}0-+.eEu nt\x00\xff\xc3\x1f";
    let mut doc = doc.to_vec();
    let at = rng.below(doc.len() + 1);
    match rng.below(5) {
        0 if at < doc.len() => doc[at] = rng.pick(BYTES),
        1 => doc.insert(at, rng.pick(BYTES)),
        2 if at < doc.len() => {
            doc.remove(at);
        }
        3 => doc.truncate(at),
        _ => doc.extend_from_slice(rng.pick(&[b" x".as_slice(), b",", b"]", b" 1", b"\n\n"])),
    }
    doc
}
