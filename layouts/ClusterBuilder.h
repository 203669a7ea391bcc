#pragma once
// Builds a cluster layout's volume (StackBuilder.h's BuildVolume calls it
// for a layout with a "cluster" section): each node's stack is the layout
// without its cluster section, the nodes' ports are the section's network,
// and a ClusterTarget joins them (ClusterSpec.h, ClusterTarget.h).
//
// The volume's tiers are the nodes' tiers, named "node2.cache"; it has no
// single cache, tier target or block cache to report (each node has its
// own). Its clients (Volume::clients()) are where the load runs.
//
// In real mode a node's devices are its tiers' paths with {node} replaced
// by its number (Layout.h's PathForNode), or sparse files in the temp dir
// named after the node. Not yet: persistent volumes (create, open), which
// are refused with a one-line error.

#include "layouts/Layout.h"
#include "layouts/StackBuilder.h"

namespace tierlab {

Expected<Volume> BuildClusterVolume(Engine& engine, const LayoutSpec& layout,
                                    const BuildOptions& options);

}  // namespace tierlab
