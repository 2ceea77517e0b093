int nf_tiny(int x) { return x + 1; }
