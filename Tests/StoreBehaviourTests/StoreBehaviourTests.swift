// The shared behavioural suite lands here.
