"""Figure specs of the edge-cloud paper (Wang et al., preemptive edge-cloud scheduling)."""
