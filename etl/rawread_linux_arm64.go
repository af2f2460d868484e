package etl

const sysPreadv2 = 286
