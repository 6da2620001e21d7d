-- One row per warehouse (a constant): chars, the characters Python's str.strip() removes from
-- either end of a text (those str.isspace() holds: U+0009..U+000D, U+001C..U+001F, U+0020,
-- U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), by their
-- decimal code points. A refusal phrase is compared with an answer stripped of these:
-- trim(answer, chars).
SELECT
    chr(9) || chr(10) || chr(11) || chr(12) || chr(13) || chr(28) || chr(29) || chr(30) || chr(31) ||
    chr(32) || chr(133) || chr(160) || chr(5760) || chr(8192) || chr(8193) || chr(8194) || chr(8195) ||
    chr(8196) || chr(8197) || chr(8198) || chr(8199) || chr(8200) || chr(8201) || chr(8202) ||
    chr(8232) || chr(8233) || chr(8239) || chr(8287) || chr(12288) AS chars
