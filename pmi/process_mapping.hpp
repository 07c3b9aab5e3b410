// PMI_process_mapping: which ranks share a node, in MPICH's vector format
// "(vector,(start,nodes,ppn),...)" (Flux RFC 13). MPICH reads it in MPI_Init to
// decide which ranks talk through shared memory: it must follow psched's placement,
// not the host names, since emulated nodes share one host.
#pragma once

#include <string>
#include <vector>

namespace psched::pmi {

// `node_of_rank[r]`: the node of rank r, numbered from 0 within the session (the
// position of the node among the session's nodes). Each block names ppn consecutive
// ranks on each of `nodes` consecutive nodes from `start`. An empty vector gives
// "(vector)".
std::string ProcessMapping(const std::vector<int>& node_of_rank);

// The inverse, for tests and for checking what a client would make of a mapping:
// the node of each of `size` ranks, or an empty vector when the text is not a mapping
// or does not cover exactly `size` ranks.
std::vector<int> NodesOfMapping(const std::string& mapping, int size);

}  // namespace psched::pmi
