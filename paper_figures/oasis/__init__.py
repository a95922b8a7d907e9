"""Figure specs of the OASiS paper (Bao et al., INFOCOM 2018)."""
