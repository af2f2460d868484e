package etl

const sysPreadv2 = 327
