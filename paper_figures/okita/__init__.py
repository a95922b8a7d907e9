"""Figure specs of the Okita paper (Han et al., unbiased distributed learning at the edge)."""
