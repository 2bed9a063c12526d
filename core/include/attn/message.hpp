// message.hpp — a sentence of the core as a message id and its values, for a page to put into its own
// words (the configurator's reasons, warnings and advice): the id names the sentence, each argument
// names a value and says what kind of value it is, so that a catalog can write it in its locale.
// The core's own English for a message comes from its table of templates (configurator_words.cpp).
#pragma once

#include <string>
#include <vector>

namespace attn {

struct Message;

struct MessageArg {
  enum class Kind {
    Count,       // a plain number (heads, layers, tokens)
    Parameters,  // a parameter count (125M, 8.0B)
    Bytes,       // bytes in binary units (KiB, MiB, GiB)
    Gigabytes,   // bytes the way devices are sold (GB = 10^9 B)
    Ratio,       // a factor (3.2x)
    Decimal,     // a number with decimals (a standard deviation, bytes per parameter)
    Text,        // the core's data, shown as it is (a citation, the ladder of variants)
    Message,     // a part of the sentence that is a message itself
  };
  std::string name;
  Kind kind = Kind::Count;
  double number = 0;
  std::string text;
  std::vector<attn::Message> message;  // one, for Kind::Message
};

struct Message {
  std::string id;  // e.g. "reason-balanced-gqa": lower case, digits and '-'
  std::vector<MessageArg> args;
};

// Builders: Message{"id", {count("heads", 8), bytes("cache", 1 << 30)}}.
inline MessageArg arg_count(const char* n, double v) { return {n, MessageArg::Kind::Count, v, {}, {}}; }
inline MessageArg arg_params(const char* n, double v) { return {n, MessageArg::Kind::Parameters, v, {}, {}}; }
inline MessageArg arg_bytes(const char* n, double v) { return {n, MessageArg::Kind::Bytes, v, {}, {}}; }
inline MessageArg arg_gb(const char* n, double v) { return {n, MessageArg::Kind::Gigabytes, v, {}, {}}; }
inline MessageArg arg_ratio(const char* n, double v) { return {n, MessageArg::Kind::Ratio, v, {}, {}}; }
inline MessageArg arg_decimal(const char* n, double v) { return {n, MessageArg::Kind::Decimal, v, {}, {}}; }
inline MessageArg arg_text(const char* n, std::string v) { return {n, MessageArg::Kind::Text, 0, std::move(v), {}}; }
inline MessageArg arg_message(const char* n, Message m) { return {n, MessageArg::Kind::Message, 0, {}, {std::move(m)}}; }

}  // namespace attn
