// Small text helpers for the SVG and table reports (djsb, psched-sim).
#pragma once

#include <string>

namespace psched {

// Escapes the characters XML gives meaning to (< > & "), for SVG text and attributes.
std::string XmlEscape(const std::string& text);

// `value` with exactly `digits` digits after the point ("%.*f").
std::string FormatFixed(double value, int digits);

}  // namespace psched
